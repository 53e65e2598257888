import TestSupport
import Foundation
import Testing

/// Protocol.md is meant to be complete: a client written from it alone, in another language, interoperates with
/// the daemon. `Tests/Tools/protocol-check` is such a client (Python 3, standard library only, written from the
/// document without reading the Swift sources); it starts the built `expensed` on port 0 in a temporary directory
/// and checks every answer against the document. A failure here means the daemon and Protocol.md disagree: its
/// output names the section and both sides.
enum ProtocolDocumentClient {
    /// `/usr/bin/python3`, else the first `python3` on PATH; nil when there is none.
    static let python: String? = {
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") { return "/usr/bin/python3" }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = String(directory) + "/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// `Tests/Tools/protocol-check` of this package.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Tools/protocol-check").path
}

@Test(.enabled(if: ProtocolDocumentClient.python != nil, "python3 not found (/usr/bin/python3 or on PATH)"))
func aClientWrittenFromProtocolDocumentAloneAgreesWithTheDaemon() async throws {
    try await onOwnThread {
        let python = try #require(ProtocolDocumentClient.python)
        let scratch = try ExpenseProcess()
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        let result = try ExpenseProcess.run(python, [ProtocolDocumentClient.script, "--expensed", ExpenseProcess.daemonExecutable],
                                            environment: environment, scratch: scratch.directory, timeout: 120)
        let lastLine = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(result.status == 0, "\(result)")
        #expect(lastLine.hasSuffix(" checks passed, 0 failed"), "\(result)")
    }
}
