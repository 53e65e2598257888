import ProcessSpawn
import Foundation
import Glibc

/// Why a figure could not be measured. The description becomes the "n/a (reason)" of the table.
enum BenchError: Error, CustomStringConvertible {
    /// A system call failed.
    case system(call: String, errno: Int32)
    /// The peer closed the connection before answering.
    case closed(String)
    /// An answer did not look like the expected one.
    case unexpectedResponse(String)
    /// A child process could not be started, did not behave, or failed.
    case child(String)
    /// Anything else worth a sentence.
    case other(String)

    var description: String {
        switch self {
        case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
        case .closed(let detail): "connection closed: \(detail)"
        case .unexpectedResponse(let detail): "unexpected response: \(detail)"
        case .child(let detail): detail
        case .other(let detail): detail
        }
    }
}


extension BenchError {
    /// A `.system` error for the current `errno`.
    static func lastSystemError(_ call: String) -> BenchError { .system(call: call, errno: errno) }

    /// Printable excerpt of raw bytes (at most `limit`), for error messages.
    static func excerpt(_ bytes: some Collection<UInt8>, limit: Int = 200) -> String {
        let text = String(decoding: bytes.prefix(limit), as: UTF8.self)
        return text.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
    }
}

extension BenchError {
    /// Runs `body`, turning a child that could not be started into ``child(_:)``.
    static func spawning<T>(_ body: () throws(ChildProcess.SpawnError) -> T) throws(BenchError) -> T {
        do {
            return try body()
        } catch {
            throw .child(error.description)
        }
    }
}
