import ExpenseCore
import Testing

/// The rules' regular expressions (``Pattern``): the subset, case folding, refusals with their positions, and
/// the bounds that keep a hostile pattern from taking more than states × length steps.
@Suite struct PatternTests {
    @Test("the subset matches as documented", arguments: [
        ("rewe", "REWE SAGT DANKE", true), ("^rewe", "xrewe", false), ("danke$", "rewe sagt danke", true),
        ("a.c", "abc", true), ("a.c", "a\nc", false), ("[a-c]+x", "bcax", true), ("[^0-9]", "123", false),
        ("\\d{4}", "ref 2026", true), ("\\d{4}", "ref 202", false), ("\\w+\\s\\w+", "ab cd", true),
        ("(ab|cd)e", "xcde", true), ("(ab|cd)e", "ade", false), ("colou?r", "color", true), ("a{2,3}", "a", false),
        ("a{2,}", "aaaa", true), ("^$", "", true), ("\\.", "a.b", true), ("\\.", "ab", false), ("(?:x)y", "xy", true),
        ("x*", "", true), ("stra\\u", "", false),
    ] as [(String, String, Bool)])
    func subset(pattern: String, text: String, expected: Bool) throws {
        guard let compiled = try? Pattern(pattern) else {
            #expect(!expected, "\(pattern) was refused")
            return
        }
        #expect(compiled.matches(text) == expected, "\(pattern) on \(text)")
    }

    @Test("case is ignored by simple folding unless the pattern starts with (?-i)")
    func caseFolding() throws {
        #expect(try Pattern("straße").matches("STRAßE"))
        #expect(try Pattern("édeka").matches("ÉDEKA markt"))
        #expect(try Pattern("[a-z]+").matches("ABC"))
        #expect(try !Pattern("(?-i)rewe").matches("REWE"))
        #expect(try Pattern("(?-i)REWE").matches("REWE"))
        #expect(try Pattern("(?-i)REWE").caseSensitive)
    }

    @Test("a bad pattern is refused with the position of its problem", arguments: [
        ("abc(def", "regex: unclosed group at position 4"), ("ab)", "regex: unmatched ')' at position 3"),
        ("[abc", "regex: unclosed character class at position 1"), ("*a", "regex: nothing to repeat at position 1"),
        ("a**", "regex: nothing to repeat at position 3"), ("[z-a]", "regex: range out of order at position 2"),
        ("a{3,1}", "regex: invalid repetition at position 2 (write {m}, {m,} or {m,n} with m <= n <= 1000)"),
        ("\\q", "regex: unknown escape at position 1"), ("(?=a)", "regex: unsupported group at position 1 (only (?:...) and a leading (?-i))"),
        ("[]", "regex: empty character class at position 1"),
    ] as [(String, String)])
    func refusals(pattern: String, message: String) {
        #expect(throws: PatternError.self) { try Pattern(pattern) }
        do { _ = try Pattern(pattern) } catch { #expect(error.message == message); #expect(error.code == "invalid_regex") }
    }

    @Test("a pattern too long or compiling to too many states is refused before it is built")
    func bounds() {
        #expect(throws: PatternError.tooLong(length: 257)) { try Pattern(String(repeating: "a", count: 257)) }
        do { _ = try Pattern("a{1000}{1000}") } catch { #expect(error == .nothingToRepeat(position: 8)) }
        do { _ = try Pattern("(a{1000}){1000}") } catch {
            guard case .tooLarge = error else { Issue.record("\(error)"); return }
        }
        #expect(throws: PatternError.self) { try Pattern("((a{100}){100})") }
        #expect((try? Pattern("a{1000}"))?.stateCount == 1001)
    }

    @Test("catastrophic-backtracking patterns finish on 10,000 characters within states × (length + 1) steps",
          arguments: ["(a+)+$", "(a|a)*b", "(a*)*b", "(a|aa)+$", "^(\\w+\\s?)*$"])
    func hostile(pattern: String) throws {
        let compiled = try Pattern(pattern)
        let text = String(repeating: "a", count: 10_000) + "!"
        let run = compiled.run(text)
        #expect(!run.matched)
        #expect(run.steps <= compiled.stateCount * (text.unicodeScalars.count + 1))
        #expect(run.steps > 0)
    }
}
