import CommandLineKit
import ExpenseTransport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `expensed tls init`: a self-signed certificate and key in the data directory, made through the OpenSSL API.
enum TLSInitCommand {
    static func run(_ command: ParsedCommand) -> ExitCode {
        let data = ExpensedCommand.dataDirectory(command.option("data"))
        let hosts = command.option("host").map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty } } ?? CertificateFactory.defaultHosts
        let certificatePath = (data as NSString).appendingPathComponent("tls.crt")
        let keyPath = (data as NSString).appendingPathComponent("tls.key")
        if !command.flag("force"), FileManager.default.fileExists(atPath: certificatePath) || FileManager.default.fileExists(atPath: keyPath) {
            ExpensedCommand.printError("Error: \(certificatePath) or \(keyPath) exists already; pass --force to replace them")
            return .failure
        }
        let identity: CertificateFactory.Identity
        do {
            identity = try CertificateFactory.selfSigned(hosts: hosts.isEmpty ? CertificateFactory.defaultHosts : hosts)
        } catch {
            ExpensedCommand.printError("Error: \(error)")
            return .failure
        }
        do {
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try writePrivate(identity.keyPEM, to: keyPath)
            try writePrivate(identity.certificatePEM, to: certificatePath)
        } catch {
            ExpensedCommand.printError("Error: cannot write the certificate into \(data): \(error)")
            return .failure
        }
        ExpensedCommand.printError("wrote \(certificatePath) and \(keyPath) for \(hosts.joined(separator: ", ")); "
                                   + "serve with --tls-cert \(certificatePath) --tls-key \(keyPath)")
        ExpensedCommand.printOut("\(identity.fingerprint)\n")
        return .success
    }

    /// Writes `text` to `path` with mode 0600 from the start (never readable by others, even for a moment),
    /// through a temporary file renamed over it.
    private static func writePrivate(_ text: String, to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress.map { $0 + offset }, bytes.count - offset) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                close(fd)
                unlink(temporary)
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            offset += written
        }
        guard fsync(fd) == 0, close(fd) == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }
}
