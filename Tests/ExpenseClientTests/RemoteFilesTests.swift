import ExpenseClient
import ExpenseTransport
import Foundation
import Testing
import TestSupport

/// The files `expense remote set` writes in $EXPENSE_HOME besides the cache (remote-tls, token), read back as
/// written and as a person may have edited them.
@Suite struct RemoteFilesTests {
    private let pin = "sha256:" + String(repeating: "ab", count: 32)

    /// A remote-tls saved with CRLF line ends (an editor on Windows): before, "\r\n" being one Character,
    /// `split(separator: "\n")` found no line end, so the whole file was read as one `ca` line and the pin was
    /// silently lost.
    @Test func aSettingsFileWithCRLFLineEndsReadsAsWithLF() throws {
        let directory = try TemporaryDirectory()
        let home = ExpenseHome(path: directory.path)
        try Data("ca /etc/ssl/ca.pem\r\npin \(pin)\r\ntrust-first\r\n".utf8).write(to: URL(fileURLWithPath: RemoteTLS.path(in: home)))
        let settings = RemoteTLS.load(home: home, environment: [:])
        #expect(settings == RemoteTLS(caFile: "/etc/ssl/ca.pem", pin: RemoteTLS.fingerprint(parsing: pin), trustFirst: true))
    }

    /// Found by Scripts/fuzz's remote-files target: `ca x\r` as the last line read as "x\r", saved as `ca x\r\n`,
    /// which read as "x\r\n": the settings written back were not the settings read.
    @Test(arguments: ["ca x\r", "ca x\r\r\n", "\nca \u{FFFD}\r", "ca x\r\npin \(String(repeating: "0", count: 3))\r"])
    func settingsReadAreWrittenBackAsTheSame(file: String) throws {
        let directory = try TemporaryDirectory()
        let home = ExpenseHome(path: directory.path)
        let path = RemoteTLS.path(in: home)
        try Data(file.utf8).write(to: URL(fileURLWithPath: path))
        let settings = RemoteTLS.load(home: home, environment: [:])
        try settings.save(home: home)
        #expect(RemoteTLS.load(home: home, environment: [:]) == settings)
        #expect(settings.caFile == "x" || settings.caFile == "\u{FFFD}")
    }
}
