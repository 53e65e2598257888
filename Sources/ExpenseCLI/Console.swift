import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a command writes: data to standard output, everything else (messages, errors) to standard error.
struct Console {
    /// Whether standard output is a terminal (charts are drawn only then).
    var isTerminal: Bool = isatty(STDOUT_FILENO) != 0

    /// Writes data to standard output.
    func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes a message line to standard error.
    func err(_ line: String) {
        FileHandle.standardError.write(Data((line.hasSuffix("\n") ? line : line + "\n").utf8))
    }
}
