import ExpenseProtocol
import Foundation
import Testing

/// The indented layout every `--json` of `expense` and `expensed` prints (``JSONWriter/pretty(_:depth:)``).
struct JSONWriterPrettyTests {
    private struct Item: Encodable { var amount: Int64, category: String, tags: [String], deleted: Bool, nested: [String: Int] }

    /// The layout is `JSONEncoder`'s `.prettyPrinted` + `.sortedKeys` one, so the outputs that moved to the one
    /// writer kept their bytes (for every value that is not an empty list or object).
    @Test func aNonEmptyValueIsLaidOutAsJSONEncoderLaysItOut() throws {
        let items = [Item(amount: -1250, category: "food/drink \"ünï\"", tags: ["a", "b"], deleted: false, nested: ["b": 2, "a": 1, "B": 3]),
                     Item(amount: 0, category: "rent\tnew\nline", tags: ["x"], deleted: true, nested: ["z": 0])]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let expected = String(decoding: try encoder.encode(items), as: UTF8.self) + "\n"
        let value = JSONValue.array(items.map { item in
            .object(["amount": .int(item.amount), "category": .string(item.category), "tags": .array(item.tags.map { .string($0) }),
                     "deleted": .bool(item.deleted), "nested": .object(item.nested.mapValues { .int($0) })])
        })
        #expect(JSONWriter.prettyText(value) == expected)
    }

    @Test func emptyListsAndObjectsAreTwoCharacters() {
        #expect(JSONWriter.prettyText(.array([])) == "[]\n")
        #expect(JSONWriter.prettyText(.object(["a": .array([]), "b": .object([:]), "c": .null])) == "{\n  \"a\" : [],\n  \"b\" : {},\n  \"c\" : null\n}\n")
    }

    /// A value laid out at a depth inside a writer (as `expense list --json` streams its rows) continues the
    /// writer's own commas.
    @Test func aValueAtADepthContinuesTheWriter() {
        var writer = JSONWriter()
        writer.raw("[\n  ")
        writer.pretty(.object(["id": .string("x")]), depth: 1)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "[\n  {\n    \"id\" : \"x\"\n  }")
    }
}
