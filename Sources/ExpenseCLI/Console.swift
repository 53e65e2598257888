import CommandLineKit
import Foundation
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// Where a command writes: data to standard output, everything else (messages, errors) to standard error.
struct Console {
    /// Whether standard output is a terminal (charts are drawn only then).
    var isTerminal: Bool = isatty(STDOUT_FILENO) != 0

    /// Writes data to standard output. A failed write (a closed pipe while SIGPIPE is ignored, a full disk)
    /// ends the program with exit 74 and a message, never a crash.
    func out(_ text: String) {
        if let error = Self.write(STDOUT_FILENO, Array(text.utf8)) {
            err(Self.writeFailure("standard output", error))
            exit(ExitCode.ioError.rawValue)
        }
    }

    /// Writes a message line to standard error (best effort: nowhere is left to report a failure).
    func err(_ line: String) {
        _ = Self.write(STDERR_FILENO, Array((line.hasSuffix("\n") ? line : line + "\n").utf8))
    }

    /// Writes every byte to `descriptor`, retrying after signals and short writes.
    /// - Returns: `nil` when everything was written, else the `errno` of the failed write.
    static func write(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32? {
        do throws(SystemCallError) {
            try writeAll(descriptor, bytes)
            return nil
        } catch {
            return error.errno
        }
    }

    /// The message of a failed write to `target` (a file name or "standard output").
    static func writeFailure(_ target: String, _ error: Int32) -> String {
        "Error: write_failed: cannot write to \(target): \(String(cString: strerror(error)))"
    }
}
