/// The text of `ferry --help` and of each subcommand's `--help`.
enum HelpText {
  static let exitCodes: String = {
    var s = "Exit status:\n"
    for code in ExitCode.allCases {
      let number = String(code.rawValue)
      s += String(repeating: " ", count: 4 - number.count) + number + "  \(code.meaning)\n"
    }
    return s
  }()

  static let socketLookup = """
    Socket: --socket PATH, else $FERRY_SOCKET, else the first that exists of
    /run/ferry/ferryd.sock and $XDG_RUNTIME_DIR/ferryd.sock, else /tmp/ferryd-$UID/ferryd.sock.
    Only a daemon of root, of you, or of $FERRY_DAEMON_UID is spoken to.
    Start the daemon with `make run` (source tree) or `systemctl start ferryd.socket`.

    """

  static let general =
    """
    ferry: send HTTP requests through the ferryd daemon, in the manner of HTTPie and curl.

    Usage:
      ferry get|post|put|patch|delete|head|options URL [ITEM...] [OPTIONS]
      ferry request METHOD URL [ITEM...] [OPTIONS]
      ferry explain [METHOD] URL [ITEM...]   how the daemon would send it, and the curl command
      ferry events [METHOD] URL [ITEM...]    the job's raw event lines (JSON), for scripts
      ferry job [METHOD] URL [ITEM...]       print the job line only; the daemon is not contacted
      ferry ping | hello | stats | metrics | sessions | jobs
      ferry top [--session S] [--json] [-1]  a live view of the daemon (q quits)
      ferry cancel ID | attach ID
      ferry cache [--session S] [--json]     a session's HTTP cache: counts and your URLs
      ferry purge URL|--all [--session S]    remove a URL's stored answers, or all of yours
      ferry cookies [--session S] [--values] [--json]   your cookie jar (values hidden)
      ferry clear-cookies [--session S] [--domain D]    empty your jar, or one domain's
      ferry help [COMMAND]   (or COMMAND --help)

    Items: Header:value  name==query  name=string  name:=json  name@file  (see ferry help get)

    Examples:
      ferry get https://api.example/users page==2 Accept:application/json
      ferry post https://api.example/users name=Ada admin:=true
      ferry post https://api.example/avatar avatar@photo.png
      ferry get https://example.org/big.iso -o big.iso --resume

    Global options:
      --socket PATH   the daemon's socket
      -h, --help      this text, or a command's
      --version       the client's version

    """ + socketLookup + exitCodes

  static let request =
    """
    Usage: ferry get|post|put|patch|delete|head|options URL [ITEM...] [OPTIONS]
           ferry request METHOD URL [ITEM...] [OPTIONS]

    Sends one request through the daemon and prints the response body on stdout.
    URL may be :PORT/path for http://localhost:PORT/path, or relative to the session's base_url.

    Items (HTTPie syntax; a backslash keeps a separator in a name literal):
      Header:value     request header (Header: alone removes a session default; Header; sends it empty)
      name==value      query parameter
      name=value       data field, a string
      name:=json       data field, raw JSON (count:=1, tags:='["a"]')
      name=@file       data field from a file's text;  name:=@file  from a file's JSON
      name@file        file part (makes the body multipart); name@file;type=image/png
    On GET, HEAD and DELETE, fields and query parameters go into the query string (the daemon's
    serializer places them); on other methods fields make the body and query parameters are
    appended to the URL. A repeated name becomes an array (a=1&a=2 in queries and forms).
    A piped stdin is the body of POST, PUT and PATCH when nothing else is.

    Body:
      -j, --json           fields as a JSON object (the default when there are fields)
      --form               fields as application/x-www-form-urlencoded (multipart with files)
      --multipart          multipart/form-data even without files
      --raw TEXT           this text as the body;  --body-file PATH  a file as the body
      --array-encoding brackets|repeat|indexed   arrays in query strings and forms
    Request:
      -H, --header 'Name: value'   a header, as curl takes it
      -a, --auth USER[:PASSWORD]   basic auth (asks for the password when left out)
      --auth-type basic|digest     digest sends -a's credentials as HTTP Digest
      --bearer TOKEN               bearer auth
      --session NAME               a session from the daemon's config
      --ignore-stdin               do not send a piped stdin as the body (POST, PUT, PATCH)
      --cacert FILE                trust this CA bundle for this request (--verify=FILE too)
      -k, --insecure               skip certificate checks for this request (--verify=no too)
      --timeout SECONDS            limit for the whole transfer
      --no-follow                  do not follow redirects (a 3xx is then a response, exit 0)
      --retry N                    retry connection failures and 408/429/5xx up to N times
      --accept-status LIST         statuses that count as success, e.g. 200-299,404
      --lane NAME                  run one at a time with the lane's other jobs
      --cache POLICY               the session cache's use: use_protocol, reload,
                                   return_cache_else_load, return_cache_dont_load, no_store
      --id ID                      the job's id (default ferry-PID-TIME)
      --detach                     submit, print the job id, exit; see ferry attach
      --wait-for-network           while the daemon sees no network, wait instead of failing
    curl's and HTTPie's spellings: -d/--data/--data-raw/--data-binary/--data-urlencode, --json DATA,
      -G, -F, -u, -X, -L, -O, -C -, -m, -s, -S, --head, -b NAME=VALUE, -e, --user-agent,
      --compressed, --fail, --connect-timeout, --max-redirs; HTTPie's POST, --follow, --print,
      --check-status, --download, --continue, --offline. -f, -A, -I, -c, -p mean different things
      in curl and HTTPie and are refused with the spelling to use (docs/CLI.md).
      A URL without a scheme whose host is localhost, an address or has a :PORT is http://.
    Output:
      -o, --output FILE            stream the body to FILE (kept only when accepted)
      --resume                     keep FILE.part on failure and continue it next time
      -i, --include                print the status line and headers before the body
      -v, --verbose                print the request and response heads on stderr
    JSON bodies are printed compact, indented when stdout is a terminal. A progress bar shows on
    stderr when it is a terminal and the transfer takes more than 0.3 s.

    """ + exitCodes

  static let explain = """
    Usage: ferry explain [METHOD] URL [ITEM...] [OPTIONS]

    Asks the daemon how it would send the request (method, URL, headers with secrets redacted,
    body size and SHA-256, multipart parts) and prints that and the equivalent curl command.
    Nothing is sent. Takes the same items and options as ferry get; the method defaults to GET,
    or POST when there are data fields or files.

    """

  static let events = """
    Usage: ferry events [METHOD] URL [ITEM...] [OPTIONS]

    Sends the job and prints every event line the daemon writes for it (queued, started,
    response, progress, done/failed/cancelled) as received, one JSON object per line, for
    scripts: ferry events get URL | jq -c 'select(.event == "progress")'.
    The exit status follows the job's end, as for ferry get.

    """ + exitCodes

  static let job = """
    Usage: ferry job [METHOD] URL [ITEM...] [OPTIONS]

    Prints the job line ferry would send, without contacting the daemon, e.g. to feed socat:
      ferry job post http://host/x a=1 | socat -t 3600 - UNIX-CONNECT:/tmp/ferryd-$UID/ferryd.sock

    """

  static let cancel = """
    Usage: ferry cancel ID

    Cancels the job ID; it ends `cancelled` for the client that runs it. An ID the daemon does
    not know is an error (exit 1).

    """ + exitCodes

  static let attach = """
    Usage: ferry attach ID [-i]

    Takes over a job submitted with --detach: waits for its end and prints its response like
    ferry get (the body on stdout, -i for the headers).

    """ + exitCodes

  static let cache = """
    Usage: ferry cache [--session NAME] [--json]

    Prints the HTTP cache of a session (default: default): whether it has one, shared or per
    user, its size limit, entries and bytes, its hit / revalidated / miss counts, then your own
    stored URLs, one a line: status, size, times served, URL. In a per-user cache the counts
    are every user's, the URLs only yours. A session without a cache says so (exit 0).
      --session NAME   the session (an unknown one is an error, exit 1)
      --json           the daemon's answer as JSON (as ferry stats prints), for scripts

    """ + exitCodes

  static let purge = """
    Usage: ferry purge URL [--session NAME] [--json]
           ferry purge --all [--session NAME] [--json]

    Removes from a session's HTTP cache (default: default) every stored answer to URL (all its
    variants), or with --all every entry of yours (in a shared cache: every entry), and prints
    how many went. URL may be :PORT/path for http://localhost:PORT/path; it is matched as the
    cache keys it (scheme and host in lower case, default port dropped). Removing nothing is
    not an error (exit 0); a URL that is not http(s) is (exit 1).
      --session NAME   the session (an unknown one is an error, exit 1)
      --all            every entry instead of one URL's
      --json           the daemon's answer as JSON, for scripts

    """ + exitCodes

  static let cookies = """
    Usage: ferry cookies [--session NAME] [--values] [--json]

    Prints your cookie jar in a session (default: default): whether the session keeps cookies,
    whether its jar is shared by every user or yours alone, how many cookies it holds, then one
    cookie a line: domain, path, name, expiry (UTC, or `session`), secure. Values are secrets
    and are hidden unless you ask for them with --values. A session without cookies says so
    (exit 0).
      --session NAME   the session (an unknown one is an error, exit 1)
      --values         also print each cookie's value (a shared jar shows them only to the
                       daemon's own user: others get access_denied, exit 1)
      --json           the daemon's answer as JSON (as ferry stats prints), for scripts

    """ + exitCodes

  static let clearCookies = """
    Usage: ferry clear-cookies [--session NAME] [--domain DOMAIN] [--json]

    Empties your cookie jar in a session (default: default), or with --domain removes only the
    cookies of DOMAIN and its subdomains, and prints how many went. The change is saved before
    the answer. Removing nothing is not an error (exit 0).
      --session NAME   the session (an unknown one is an error, exit 1)
      --domain DOMAIN  only DOMAIN's cookies and its subdomains'
      --json           the daemon's answer as JSON, for scripts

    """ + exitCodes

  static let top = """
    Usage: ferry top [--session NAME] [--json] [-1|--once]

    A full-screen view of the daemon, refreshed every second from its stats: jobs per second,
    running and queued jobs per session, retries, bytes per second up and down, connections,
    cache hit ratio, clients. It shows what the daemon's stats show the caller.
    Keys: q quits, s changes the sort (name, running, queued, done), / filters by session
    (Enter applies, an empty filter clears it).
    Off a terminal (stdout not a tty) it prints one pass without escape codes and exits.
      --session NAME   start filtered to sessions whose name holds NAME
      --json           print the stats answer once, as JSON
      -1, --once       print one pass and exit

    """ + exitCodes

  /// The short page of an op without arguments.
  static func op(_ name: String, _ summary: String) -> String {
    "Usage: ferry \(name)\n\n\(summary)\nThe answer is JSON, indented when stdout is a terminal.\n\n"
      + socketLookup + exitCodes
  }
}
