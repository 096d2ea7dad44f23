# fish completion for ferry(1). Installed as
# /usr/share/fish/vendor_completions.d/ferry.fish.
#
# The commands and options come from ferry itself (ferry --complete-commands,
# --complete-options COMMAND), so they are always the parser's own; session names come from the
# daemon (ferry --complete-sessions: nothing when it is not up).

# Prints, after the prefix $argv[1], the values of an option of kind $argv[2] (choices
# $argv[3]) that start with $argv[4]; $argv[5] is the socket the line names.
function __ferry_values
    set -l prefix $argv[1]
    switch $argv[2]
        case file
            for path in (__fish_complete_path $argv[4])
                echo $prefix$path
            end
        case data
            string match -q -- '*@*' $argv[4]; or return
            set -l parts (string split -m 1 @ -- $argv[4])
            for path in (__fish_complete_path $parts[2])
                echo $prefix$parts[1]@$path
            end
        case session
            set -l socket
            test -n "$argv[5]"; and set socket --socket $argv[5]
            for name in (ferry --complete-sessions $socket 2>/dev/null)
                echo $prefix$name
            end
        case choice
            for value in (string split ' ' -- $argv[3])
                echo $prefix$value
            end
    end
end

function __ferry_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l names
    set -l kinds
    set -l choices
    for line in (ferry --complete-options 2>/dev/null)
        set -l fields (string split \t -- $line)
        set -a names $fields[1]
        set -a kinds $fields[2]
        set -a choices "$fields[3]"
    end

    # The command, the --socket given, and how many words follow the command.
    set -l command ''
    set -l socket ''
    set -l pending ''
    set -l positional 0
    for word in $words[2..-1]
        if test -n "$pending"
            test "$pending" = --socket; and set socket $word
            set pending ''
        else if string match -q -- '--socket=*' $word
            set socket (string replace -- '--socket=' '' $word)
        else if string match -q -- '-?*' $word
            set -l i (contains -i -- $word $names)
            and test $kinds[$i] != flag
            and set pending $word
        else if test -z "$command"
            set command $word
        else
            set positional (math $positional + 1)
        end
    end

    if test -n "$pending"
        set -l i (contains -i -- $pending $names)
        __ferry_values '' $kinds[$i] $choices[$i] $cur $socket
        return
    end
    if string match -q -- '--*=*' $cur
        set -l name (string split -m 1 = -- $cur)[1]
        set -l i (contains -i -- $name $names)
        or return
        __ferry_values "$name=" $kinds[$i] $choices[$i] (string split -m 1 = -- $cur)[2] $socket
        return
    end
    if string match -q -- '-*' $cur
        for line in (ferry --complete-options "$command" 2>/dev/null)
            echo (string split \t -- $line)[1]
        end
        return
    end

    switch $command
        case ''
            ferry --complete-commands 2>/dev/null
        case help
            test $positional -eq 0; and ferry --complete-commands 2>/dev/null
        case '*'
            # The URL (and request's METHOD) first, then items. A METHOD in capitals is a command;
            # a URL as the first word (with a scheme, :PORT, HOST:PORT, localhost, an IP) is too.
            # (fish's case patterns have no [..] classes, hence the regular expressions.)
            set -l before 0
            test "$command" = request; and set before 1
            if not contains -- $command get post put patch delete head options request explain events job
                and not string match -qr -- '^[A-Z]' $command
                string match -qr -- '://|^:|:[0-9]|^localhost|^[0-9]+\.[0-9]|^\[' $command; or return
                set before -1
            end
            test $positional -gt $before; or return
            if string match -q -- '*@*' $cur
                # name@file, name=@file, name:=@file, and @file (the raw body).
                set -l parts (string split -m 1 @ -- $cur)
                __ferry_values "$parts[1]@" file '' $parts[2] ''
            else
                ferry --complete-item $cur 2>/dev/null
            end
    end
end

complete -c ferry -f -a '(__ferry_complete)'
