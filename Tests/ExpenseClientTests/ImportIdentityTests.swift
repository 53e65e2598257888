import ExpenseClient
import ExpenseCore
import Foundation
import Testing

@Suite struct ImportIdentityTests {
    /// FIPS 180-4 / RFC 3174 test vectors, including the two-block and the million-`a` messages.
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
    ])
    func sha1MatchesTheStandardVectors(message: String, digest: String) {
        #expect(SHA1.digest(Array(message.utf8)).map { String(format: "%02x", $0) }.joined() == digest)
    }

    @Test func sha1OfAMillionAs() {
        let digest = SHA1.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
        #expect(digest.map { String(format: "%02x", $0) }.joined() == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    /// RFC 9562's (and Python's `uuid.uuid5`) example: the DNS namespace and `www.example.com`.
    @Test func nameBasedUUIDMatchesRFC9562() throws {
        let dns = try #require(UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8"))
        #expect(UUIDText.lowercased(ImportIdentity.nameBased(namespace: dns, name: Array("www.example.com".utf8)))
                == "2ed6657d-e927-568b-95e1-2665a8aea6a2")
    }

    @Test func identicalRowsGetOneIdPerOccurrenceAndTheSameIdsEveryTime() throws {
        let csv = "date,amount,currency,category,note\n2026-01-01,4.20,USD,tea,\n2026-01-01,4.20,USD,tea,\n2026-01-01,4.20,USD,tea,x\n"
        let first = try CSVImporter.expenses(from: csv, defaultCurrency: .usd)
        let second = try CSVImporter.expenses(from: csv, defaultCurrency: .usd)
        #expect(first.map(\.id) == second.map(\.id))
        #expect(Set(first.map(\.id)).count == 3)
        // An empty currency resolves first: the same row in a EUR cache is a different expense.
        let euro = try CSVImporter.expenses(from: csv.replacingOccurrences(of: "USD", with: ""), defaultCurrency: try #require(Currency(code: "EUR")))
        #expect(Set(euro.map(\.id)).isDisjoint(with: first.map(\.id)))
        // Version 5, RFC variant.
        #expect(first.allSatisfy { UUIDText.lowercased($0.id).dropFirst(14).first == "5" })
    }
}
