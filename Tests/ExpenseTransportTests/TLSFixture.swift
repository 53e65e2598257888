import Foundation
@testable import ExpenseTransport

/// A certificate and key made for one test (through ``CertificateFactory``) in a temporary directory, key 0600.
struct TLSFixture {
    let directory: String
    let certificateFile: String
    let keyFile: String
    let fingerprint: CertificateFingerprint

    init(hosts: [String] = ["localhost", "127.0.0.1"], notBefore: Int = -300, notAfter: Int = 86_400,
         name: String = "server") throws {
        directory = NSTemporaryDirectory() + "tls-fixture-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let identity = try CertificateFactory.selfSigned(hosts: hosts, notBefore: notBefore, notAfter: notAfter)
        certificateFile = directory + "/\(name).crt"
        keyFile = directory + "/\(name).key"
        try Data(identity.certificatePEM.utf8).write(to: URL(fileURLWithPath: certificateFile))
        _ = FileManager.default.createFile(atPath: keyFile, contents: Data(identity.keyPEM.utf8), attributes: [.posixPermissions: 0o600])
        fingerprint = identity.fingerprint
    }

    func serverContext() throws -> TLSContext {
        try TLSContext.server(certificateFile: certificateFile, keyFile: keyFile)
    }

    func identity() throws -> TLSServerIdentity {
        try TLSServerIdentity(certificateFile: certificateFile, keyFile: keyFile)
    }

    /// Client settings trusting this certificate as the CA.
    var trusting: TLSClientConfiguration { TLSClientConfiguration(verification: .authority(caFile: certificateFile)) }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

/// Moves bytes between two sessions until neither has anything to send; returns the plaintext each received.
@discardableResult
func pump(_ client: TLSSession, _ server: TLSSession, rounds: Int = 20) -> (client: [UInt8], server: [UInt8]) {
    var toClient: [UInt8] = []
    var toServer: [UInt8] = []
    for _ in 0..<rounds {
        client.advance { toClient += $0 }
        server.advance { toServer += $0 }
        var moved = false
        if client.pendingCiphertext > 0 {
            let bytes = client.withPendingCiphertext { Array($0) }
            client.consumeCiphertext(bytes.count)
            bytes.withUnsafeBytes { server.advance(receiving: $0) { toServer += $0 } }
            moved = true
        }
        if server.pendingCiphertext > 0 {
            let bytes = server.withPendingCiphertext { Array($0) }
            server.consumeCiphertext(bytes.count)
            bytes.withUnsafeBytes { client.advance(receiving: $0) { toClient += $0 } }
            moved = true
        }
        if !moved { break }
    }
    client.advance { toClient += $0 }
    server.advance { toServer += $0 }
    return (toClient, toServer)
}
