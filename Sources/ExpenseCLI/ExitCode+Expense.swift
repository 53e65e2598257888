import CommandLineKit

extension ExitCode {
    /// The command did its work, but left something for a person to decide (`expense sync` with conflicts open).
    static let conflictsRemain = ExitCode(3)

    /// What each code means for `expense`, one line per code, for its help texts and docs/usage.md ("Exit codes").
    static var documentation: String {
        """
          0  success
          1  failure (for example an unknown or ambiguous id)
          3  synced, but conflicts remain
         64  usage error (a wrong command line)
         65  invalid data (a validation error; the message names the field)
         69  server unavailable
         74  I/O error (for example an unreadable cache file)
         75  try again later (another `expense sync` runs on this cache)
         76  protocol failure (the daemon refused or answered a request in a way the client cannot use)
         77  permission denied (a wrong token, a local change on a viewer's cache, a file the system refuses)
        """
    }
}
