import CommandLineKit
import ExpenseTransport
import FoundationEssentials
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// `expensed tls init`: a self-signed certificate and key in the data directory, made through the OpenSSL API.
enum TLSInitCommand {
    static func run(_ command: ParsedCommand) -> ExitCode {
        let data = ExpensedCLI.dataDirectory(command[ExpensedOptions.data])
        let hosts = command[ExpensedOptions.hosts].map { $0.split(separator: ",").map { String($0).trimmingWhitespace }
            .filter { !$0.isEmpty } } ?? CertificateFactory.defaultHosts
        let directory = data.isEmpty || data.hasSuffix("/") ? data : data + "/"
        let certificatePath = directory + "tls.crt", keyPath = directory + "tls.key"
        if !command[ExpensedOptions.force], FileManager.default.fileExists(atPath: certificatePath) || FileManager.default.fileExists(atPath: keyPath) {
            ExpensedCLI.printError("Error: \(certificatePath) or \(keyPath) exists already; pass --force to replace them")
            return .failure
        }
        let identity: CertificateFactory.Identity
        do {
            identity = try CertificateFactory.selfSigned(hosts: hosts.isEmpty ? CertificateFactory.defaultHosts : hosts)
        } catch {
            ExpensedCLI.printError("Error: \(error)")
            return .failure
        }
        do {
            try PrivateDirectory.make(data)
            // 0600 from the start (never readable by others, even for a moment), whole or untouched.
            try AtomicFile.write(Array(identity.keyPEM.utf8), to: keyPath)
            try AtomicFile.write(Array(identity.certificatePEM.utf8), to: certificatePath)
        } catch {
            ExpensedCLI.printError("Error: cannot write the certificate into \(data): \(error)")
            return .failure
        }
        ExpensedCLI.printError("wrote \(certificatePath) and \(keyPath) for \(hosts.joined(separator: ", ")); "
                                   + "serve with --tls-cert \(certificatePath) --tls-key \(keyPath)")
        ExpensedCLI.printOut("\(identity.fingerprint)\n")
        return .success
    }
}
