/// A recursive-descent parser of the documented subset (``Pattern``), reporting each refusal at its 1-based
/// scalar position.
struct PatternParser {
    private let scalars: [Unicode.Scalar]
    /// The next scalar to read. Recursion is as deep as groups are nested, bounded by the pattern's length.
    private var index = 0

    init(_ scalars: [Unicode.Scalar], startingAt index: Int) {
        self.scalars = scalars
        self.index = index
    }

    /// The whole pattern as one node.
    mutating func parse() throws(PatternError) -> PatternNode {
        let node = try alternation()
        if index < scalars.count { throw .unmatchedParenthesis(position: index + 1) }  // only a `)` stops early
        return node
    }

    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func alternation() throws(PatternError) -> PatternNode {
        var branches = [try concatenation()]
        while current == "|" {
            index += 1
            branches.append(try concatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func concatenation() throws(PatternError) -> PatternNode {
        var items: [PatternNode] = []
        while let scalar = current, scalar != "|", scalar != ")" {
            let atom = try self.atom()
            items.append(try quantified(atom))
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .concatenation(items)
        }
    }

    /// `atom` followed by at most one quantifier; a second one is refused (`a**`), since it adds nothing but
    /// states.
    private mutating func quantified(_ atom: PatternNode) throws(PatternError) -> PatternNode {
        guard let (minimum, maximum) = try quantifier() else { return atom }
        if atom == .start || atom == .end { throw .nothingToRepeat(position: index) }
        let node = PatternNode.repetition(atom, minimum: minimum, maximum: maximum)
        if let scalar = current, scalar == "*" || scalar == "+" || scalar == "?" || (scalar == "{" && looksLikeBound()) {
            throw .nothingToRepeat(position: index + 1)
        }
        return node
    }

    /// Reads `*`, `+`, `?` or `{m,n}` at the current point, if there is one.
    private mutating func quantifier() throws(PatternError) -> (Int, Int?)? {
        switch current {
        case "*": index += 1; return (0, nil)
        case "+": index += 1; return (1, nil)
        case "?": index += 1; return (0, 1)
        case "{": return try bound()
        default: return nil
        }
    }

    private func looksLikeBound() -> Bool { index + 1 < scalars.count && ("0"..."9").contains(scalars[index + 1]) }

    /// `{m}`, `{m,}` or `{m,n}`, each number at most ``Pattern/maximumRepetition``.
    private mutating func bound() throws(PatternError) -> (Int, Int?) {
        let start = index
        index += 1
        func number() -> Int? {
            var value: Int?
            while let scalar = current, ("0"..."9").contains(scalar) {
                value = min((value ?? 0) * 10 + Int(scalar.value - 48), Pattern.maximumRepetition + 1)
                index += 1
            }
            return value
        }
        guard let minimum = number() else { throw .invalidRepetition(position: start + 1) }
        var maximum: Int? = minimum
        if current == "," {
            index += 1
            maximum = number()
        }
        guard current == "}", minimum <= Pattern.maximumRepetition, (maximum ?? minimum) <= Pattern.maximumRepetition,
              minimum <= (maximum ?? minimum) else {
            throw .invalidRepetition(position: start + 1)
        }
        index += 1
        return (minimum, maximum)
    }

    private mutating func atom() throws(PatternError) -> PatternNode {
        let position = index + 1
        guard let scalar = current else { return .empty }
        index += 1
        switch scalar {
        case "(":
            if current == "?" {
                guard index + 1 < scalars.count, scalars[index + 1] == ":" else { throw .unsupportedGroup(position: position) }
                index += 2
            }
            let inner = try alternation()
            guard current == ")" else { throw .unclosedGroup(position: position) }
            index += 1
            return inner
        case "[": return .set(try set(openedAt: position))
        case ".": return .any
        case "^": return .start
        case "$": return .end
        case "*", "+", "?": throw .nothingToRepeat(position: position)
        case "{" where index < scalars.count && ("0"..."9").contains(scalars[index]): throw .nothingToRepeat(position: position)
        case "\\": return try escape(at: position)
        default: return .scalar(scalar)
        }
    }

    /// After a `\`: a class (`\d \D \w \W \s \S`), a control (`\t \n \r`), or any other non-alphanumeric
    /// ASCII character as itself.
    private mutating func escape(at position: Int) throws(PatternError) -> PatternNode {
        guard let scalar = current else { throw .invalidEscape(position: position) }
        index += 1
        switch scalar {
        case "d": return .set(.digit)
        case "w": return .set(.word)
        case "s": return .set(.space)
        case "D": return .set(PatternSet(ranges: PatternSet.digit.ranges, negated: true))
        case "W": return .set(PatternSet(ranges: PatternSet.word.ranges, negated: true))
        case "S": return .set(PatternSet(ranges: PatternSet.space.ranges, negated: true))
        case "t": return .scalar("\t")
        case "n": return .scalar("\n")
        case "r": return .scalar("\r")
        default:
            guard scalar.isASCII, !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar) else {
                throw .invalidEscape(position: position)
            }
            return .scalar(scalar)
        }
    }

    /// After a `[`: `^` to negate, then scalars, ranges `a-z` and escapes up to `]`. A `-` first or last is
    /// itself; a `]` must be escaped.
    private mutating func set(openedAt position: Int) throws(PatternError) -> PatternSet {
        var negated = false
        if current == "^" {
            negated = true
            index += 1
        }
        var ranges: [ClosedRange<UInt32>] = []
        while true {
            guard let scalar = current else { throw .unclosedClass(position: position) }
            let itemPosition = index + 1
            if scalar == "]" {
                index += 1
                break
            }
            index += 1
            var low = scalar.value
            if scalar == "\\" {
                switch try escape(at: itemPosition) {
                case .set(let inner) where !inner.negated: ranges += inner.ranges; continue
                case .scalar(let escaped): low = escaped.value
                default: throw .invalidEscape(position: itemPosition)  // a negated class inside a class
                }
            }
            if current == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                index += 1
                guard var high = current?.value else { throw .unclosedClass(position: position) }
                index += 1
                if high == 0x5C {  // `\`: an escaped end of the range
                    guard case .scalar(let escaped) = try escape(at: index) else { throw .invalidRange(position: itemPosition) }
                    high = escaped.value
                }
                guard low <= high else { throw .invalidRange(position: itemPosition) }
                ranges.append(low...high)
            } else {
                ranges.append(low...low)
            }
        }
        guard !ranges.isEmpty else { throw .emptyClass(position: position) }
        return PatternSet(ranges: ranges, negated: negated)
    }
}
