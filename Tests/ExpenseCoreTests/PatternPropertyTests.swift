import ExpenseCore
import Testing
import TestSupport

/// ``Pattern``'s simulation compared with a naive backtracking matcher over the same parsed form, on seeded
/// random patterns and every short text over a small alphabet: the two must agree on every pair.
@Suite struct PatternPropertyTests {
    @Test("the Pike simulation agrees with a backtracking reference on 150 random patterns")
    func agreesWithReference() throws {
        var random = SeededGenerator(seed: 0x5eed_4e6e)
        let texts = Self.texts(alphabet: ["a", "b", "A", "\n"], upTo: 4)
        var compared = 0
        for _ in 0..<150 {
            let source = Self.pattern(depth: 3, using: &random)
            guard let pattern = try? Pattern(source), let node = try? Pattern.syntax(source) else { continue }
            for text in texts {
                let expected = Reference(node: node, text: Array(text.unicodeScalars)).matchesSomewhere()
                #expect(pattern.matches(text) == expected, "\(source) on \(text.debugDescription)")
                compared += 1
            }
        }
        #expect(compared > 5_000)
    }

    static func texts(alphabet: [String], upTo length: Int) -> [String] {
        var all = [""], layer = [""]
        for _ in 0..<length {
            layer = layer.flatMap { prefix in alphabet.map { prefix + $0 } }
            all += layer
        }
        return all
    }

    static func pattern(depth: Int, using random: inout SeededGenerator) -> String {
        let atoms = ["a", "b", "B", ".", "[ab]", "[^a]", "\\w", "^", "$"]
        var text = ""
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            var atom = atoms[Int.random(in: 0..<atoms.count, using: &random)]
            if depth > 0, Int.random(in: 0..<3, using: &random) == 0 {
                atom = "(" + pattern(depth: depth - 1, using: &random)
                    + (Bool.random(using: &random) ? "|" + pattern(depth: depth - 1, using: &random) : "") + ")"
            }
            if atom != "^" && atom != "$" {
                atom += ["", "", "*", "+", "?", "{2}", "{1,2}", "{0,}"][Int.random(in: 0..<8, using: &random)]
            }
            text += atom
        }
        return text
    }
}

/// Backtracking over ``PatternNode`` with continuations: exponential in the worst case, so only for short texts.
private struct Reference {
    let node: PatternNode
    let text: [Unicode.Scalar]

    func matchesSomewhere() -> Bool { (0...text.count).contains { start in match(node, start) { _ in true } } }

    private func match(_ node: PatternNode, _ position: Int, _ next: (Int) -> Bool) -> Bool {
        switch node {
        case .empty: return next(position)
        case .scalar(let scalar):
            return position < text.count && PatternFolding.fold(text[position]) == PatternFolding.fold(scalar) && next(position + 1)
        case .any: return position < text.count && text[position] != "\n" && next(position + 1)
        case .set(let set): return position < text.count && set.contains(text[position], foldingCase: true) && next(position + 1)
        case .start: return position == 0 && next(position)
        case .end: return position == text.count && next(position)
        case .concatenation(let items): return sequence(items[...], position, next)
        case .alternation(let branches): return branches.contains { match($0, position, next) }
        case .repetition(let inner, let minimum, let maximum): return repeated(inner, minimum, maximum, 0, position, next)
        }
    }

    private func sequence(_ items: ArraySlice<PatternNode>, _ position: Int, _ next: (Int) -> Bool) -> Bool {
        guard let first = items.first else { return next(position) }
        return match(first, position) { sequence(items.dropFirst(), $0, next) }
    }

    /// One more copy when allowed (an empty copy past the minimum ends the loop), else what follows.
    private func repeated(_ inner: PatternNode, _ minimum: Int, _ maximum: Int?, _ done: Int, _ position: Int,
                          _ next: (Int) -> Bool) -> Bool {
        if maximum.map({ done < $0 }) ?? true,
           match(inner, position, { after in (after != position || done < minimum) && repeated(inner, minimum, maximum, done + 1, after, next) }) {
            return true
        }
        return done >= minimum && next(position)
    }
}
