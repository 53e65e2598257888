import ExpenseCore
import Testing

/// The tag rule (``ExpenseTags``, ``ExpenseValidator/validateTags(_:)``) and the three-way merge of tag sets.
@Suite struct ExpenseTagsTests {
    @Test("refused: empty, longer than 32 characters, whitespace, a comma, control and hidden characters",
          arguments: ["", String(repeating: "a", count: 33), "a b", "a\u{A0}b", "a,b", "a\tb", "a\nb", "a\u{7}b", "a\u{202E}b", "a\u{2028}b"])
    func refused(_ tag: String) {
        #expect(throws: ValidationError.self) { try ExpenseValidator.validateTags([tag]) }
        do {
            _ = try ExpenseValidator.validateTags([tag])
        } catch let error as ValidationError {
            #expect(error.code == "invalid_tags" && error.field == .tags)
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("accepted: 32 characters of any width, emoji, punctuation other than the comma")
    func accepted() throws {
        let tags = [String(repeating: "é", count: 32), "trip-2026", "🏖️", "a/b", "#x", "日本"]
        #expect(try ExpenseValidator.validateTags(tags).count == tags.count)
    }

    @Test("at most 16 different tags; a tag given twice (by its bytes) counts once; sorted by bytes")
    func countAndOrder() throws {
        let sixteen = (1...16).map { "t\($0)" }
        #expect(try ExpenseValidator.validateTags(sixteen + ["t1"]).count == 16)
        #expect(throws: ValidationError.self) { try ExpenseValidator.validateTags(sixteen + ["t17"]) }
        #expect(try ExpenseValidator.validateTags(["b", "B", "a", "b"]) == ["B", "a", "b"])
        // NFC and NFD are two tags, ordered by their bytes: "cafe" + U+0301 (0x65 …) before "caf" + U+00E9 (0xC3 …).
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        let both = try ExpenseValidator.validateTags([nfc, nfd])
        #expect(both.count == 2 && both[0].utf8.elementsEqual(nfd.utf8) && both[1].utf8.elementsEqual(nfc.utf8))
    }

    @Test("the text form joins with commas and reads back the same set")
    func textForm() {
        #expect(ExpenseTags.text(["a", "b"]) == "a,b")
        #expect(ExpenseTags.parse("a,b") == ["a", "b"])
        #expect(ExpenseTags.parse("") == [])
    }

    @Test("merge: additions on both sides unite, a tag added on both is one, removals apply")
    func merges() {
        #expect(ExpenseTags.merge(base: ["base"], mine: ["base", "work"], theirs: ["base", "trip"], touched: ["trip"]) == ["base", "trip", "work"])
        #expect(ExpenseTags.merge(base: [], mine: ["same"], theirs: ["same"], touched: ["same"]) == ["same"])
        #expect(ExpenseTags.merge(base: ["a", "b"], mine: ["b"], theirs: ["a", "b", "c"], touched: ["c"]) == ["b", "c"])
        #expect(ExpenseTags.merge(base: ["a"], mine: [], theirs: [], touched: ["a"]) == [])  // removed on both sides
    }

    @Test("merge: a tag one side adds that the other removed since, or removes that the other added since, is a conflict")
    func conflicts() {
        // Added by the edit; removed (after being added) on the other side.
        #expect(ExpenseTags.merge(base: [], mine: ["x"], theirs: [], touched: ["x", "x"]) == nil)
        // Removed by the edit; removed and added again on the other side.
        #expect(ExpenseTags.merge(base: ["x"], mine: [], theirs: ["x"], touched: ["x", "x"]) == nil)
        // Untouched on the other side: the edit's change of it stands.
        #expect(ExpenseTags.merge(base: ["x"], mine: [], theirs: ["x", "y"], touched: ["y"]) == ["y"])
    }
}
