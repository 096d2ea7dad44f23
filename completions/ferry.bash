# bash completion for ferry(1). Installed as /usr/share/bash-completion/completions/ferry.
#
# The commands and options come from ferry itself (ferry --complete-commands,
# --complete-options COMMAND), so they are always the parser's own; session names come from the
# daemon (ferry --complete-sessions: nothing when it is not up). Needs nothing of the
# bash-completion package but its loader.

# The words of the line up to the cursor as the user typed them: bash splits COMP_WORDS at the
# characters of COMP_WORDBREAKS (`:` and `=` among them), which would cut `Accept:json` and
# `--session=api` apart; words that touch in COMP_LINE are joined again. Sets _ferry_words.
_ferry_join_words() {
    local line=${COMP_LINE:0:COMP_POINT} i word rest
    _ferry_words=()
    for ((i = 0; i <= COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        rest=${line#"${line%%[![:space:]]*}"}
        if ((i > 0)) && [[ $rest == "$line" ]]; then
            _ferry_words[-1]+=$word
        else
            _ferry_words+=("$word")
        fi
        line=${rest#"$word"}
    done
}

# Adds to COMPREPLY the files and directories that start with $2, each after the prefix $1.
_ferry_files() {
    local prefix=$1 partial=$2 path
    while IFS= read -r path; do
        if [[ -d $path ]]; then
            COMPREPLY+=("$prefix$path/")
            compopt -o nospace 2>/dev/null
        else
            COMPREPLY+=("$prefix$path")
        fi
    done < <(compgen -f -- "$partial")
}

# Adds to COMPREPLY what the value of an option of kind $2 (choices $3) may be, after $1.
_ferry_values() {
    local prefix=$1 kind=$2 choices=$3 partial=$4 socket=$5 value
    case $kind in
    file) _ferry_files "$prefix" "$partial" ;;
    data) [[ $partial == *@* ]] && _ferry_files "$prefix${partial%%@*}@" "${partial#*@}" ;;
    session)
        while IFS= read -r value; do
            [[ $value == "$partial"* ]] && COMPREPLY+=("$prefix$value")
        done < <(ferry --complete-sessions ${socket:+--socket "$socket"} 2>/dev/null)
        ;;
    choice)
        for value in $choices; do
            [[ $value == "$partial"* ]] && COMPREPLY+=("$prefix$value")
        done
        ;;
    esac
}

_ferry() {
    local _ferry_words
    _ferry_join_words
    local cur=${_ferry_words[-1]} i word name kind choices
    local command="" socket="" pending="" positional=0
    local -A kinds=() values=()
    while IFS=$'\t' read -r name kind choices; do
        kinds[$name]=$kind
        values[$name]=$choices
    done < <(ferry --complete-options 2>/dev/null)
    COMPREPLY=()

    # The command, the --socket given, and how many words follow the command.
    for ((i = 1; i < ${#_ferry_words[@]} - 1; i++)); do
        word=${_ferry_words[i]}
        if [[ -n $pending ]]; then
            [[ $pending == --socket ]] && socket=$word
            pending=""
        elif [[ $word == --socket=* ]]; then
            socket=${word#--socket=}
        elif [[ $word == -?* && -n ${kinds[$word]} ]]; then
            [[ ${kinds[$word]} != flag ]] && pending=$word
        elif [[ $word == -?* ]]; then
            :
        elif [[ -z $command ]]; then
            command=$word
        else
            ((positional++))
        fi
    done

    # The value of an option: `--output FILE`, `--session=NAME`.
    if [[ -n $pending ]]; then
        _ferry_values "" "${kinds[$pending]}" "${values[$pending]}" "$cur" "$socket"
        return 0
    fi
    if [[ $cur == --*=* ]]; then
        name=${cur%%=*}
        _ferry_values "$name=" "${kinds[$name]}" "${values[$name]}" "${cur#*=}" "$socket"
        _ferry_trim "$cur"
        return 0
    fi

    if [[ $cur == -* ]]; then
        while IFS=$'\t' read -r name kind choices; do
            [[ $name == "$cur"* ]] && COMPREPLY+=("$name")
        done < <(ferry --complete-options "${command:-}" 2>/dev/null)
        return 0
    fi

    case $command in
    "")
        while IFS=$'\t' read -r name kind; do
            [[ $name == "$cur"* ]] && COMPREPLY+=("$name")
        done < <(ferry --complete-commands 2>/dev/null)
        ;;
    help)
        ((positional == 0)) || return 0
        while IFS=$'\t' read -r name kind; do
            [[ $name == "$cur"* && $name != help ]] && COMPREPLY+=("$name")
        done < <(ferry --complete-commands 2>/dev/null)
        ;;
    get | post | put | patch | delete | head | options | request | explain | events | job | [A-Z]* | \
        *://* | :* | *:[0-9]* | localhost* | [0-9]*.[0-9]* | \[*)
        # The URL (and request's METHOD) first, then items. A METHOD in capitals is a command;
        # a URL as the first word (with a scheme, :PORT, HOST:PORT, localhost, an IP) is too.
        local before=0
        [[ $command == request ]] && before=1
        [[ $command != [A-Z]* && $command != @(get|post|put|patch|delete|head|options|request|explain|events|job) ]] &&
            before=-1
        ((positional > before)) || return 0
        if [[ $cur == *@* ]]; then
            # name@file, name=@file, name:=@file, and @file (the raw body).
            _ferry_files "${cur%%@*}@" "${cur#*@}"
        else
            while IFS= read -r word; do COMPREPLY+=("$word"); done < <(ferry --complete-item "$cur" 2>/dev/null)
            compopt -o nospace 2>/dev/null
        fi
        ;;
    esac
    _ferry_trim "$cur"
    return 0
}

# bash replaces only the part of the word after its last COMP_WORDBREAKS character (`:`, `=`):
# drop what comes before it, as typed in $1, from every reply.
_ferry_trim() {
    local breaks="" lead i
    [[ $COMP_WORDBREAKS == *:* ]] && breaks+=":"
    [[ $COMP_WORDBREAKS == *=* ]] && breaks+="="
    [[ -n $breaks && $1 == *["$breaks"]* ]] || return 0
    lead=${1%"${1##*["$breaks"]}"}
    for i in "${!COMPREPLY[@]}"; do
        COMPREPLY[i]=${COMPREPLY[i]#"$lead"}
    done
}

complete -F _ferry ferry
