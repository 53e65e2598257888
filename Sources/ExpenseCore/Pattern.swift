/// A rule's regular expression, matched in time linear in the text: never by backtracking.
///
/// The subset: literals; `.` (any scalar but a newline); classes `[a-z]`, `[^…]`; `\d \w \s` and their
/// negations `\D \W \S` (ASCII digits, ASCII letters, digits and `_`, ASCII white space); `\t \n \r` and
/// any other ASCII punctuation escaped as itself; anchors `^ $` (the start and end of the whole text); groups
/// `( )` and `(?: )` (the same: nothing is captured); alternation `|`; `* + ?` and `{m}`, `{m,}`, `{m,n}`
/// (at most ``maximumRepetition``). A match may start anywhere unless the pattern says `^`.
///
/// The text is read as Unicode scalars, not characters: `é` typed as `e` and a combining accent is two
/// scalars, and `.` matches one of them. Matching is case-insensitive by simple case folding (a scalar's
/// one-scalar lower-case mapping; `ß` and others whose folding is longer stay themselves) unless the pattern
/// begins with `(?-i)`.
///
/// - Important: the bounds that keep a rule from making an import hang: a pattern of at most ``maximumLength``
///   scalars compiles to at most ``maximumStates`` instructions (checked before anything is built, so
///   `a{1000}{1000}` is refused without being expanded), and the simulation visits each instruction at most
///   once per position of the text (Thompson's construction run as a Pike VM), so a match costs at most
///   `states × (length + 1)` steps whatever the pattern; ``run(_:)`` reports the count so tests can hold it
///   to that.
public struct Pattern: Hashable, Sendable, CustomStringConvertible {
    /// The longest pattern, in Unicode scalars.
    public static let maximumLength = 256
    /// The most instructions a compiled pattern may have.
    public static let maximumStates = 2_000
    /// The largest number in `{m,n}`.
    public static let maximumRepetition = 1_000
    /// The prefix that asks for case-sensitive matching.
    public static let caseSensitivePrefix = "(?-i)"

    /// The pattern as written, prefix included.
    public let source: String
    /// Whether letters must match in their case (the `(?-i)` prefix).
    public let caseSensitive: Bool
    private let program: [PatternInstruction]

    /// Parses and compiles `source`.
    /// - Throws: ``PatternError`` naming the position of the first problem, or the size that is too large.
    public init(_ source: String) throws(PatternError) {
        let scalars = Array(source.unicodeScalars)
        guard scalars.count <= Self.maximumLength else { throw .tooLong(length: scalars.count) }
        let prefix = Array(Self.caseSensitivePrefix.unicodeScalars)
        caseSensitive = scalars.starts(with: prefix)
        var parser = PatternParser(scalars, startingAt: caseSensitive ? prefix.count : 0)
        let node = try parser.parse()
        let size = PatternCompiler.size(of: node) + 1
        guard size <= Self.maximumStates else { throw .tooLarge(states: size) }
        var compiler = PatternCompiler(foldingCase: !caseSensitive)
        compiler.emit(node)
        compiler.program.append(.match)
        self.source = source
        self.program = compiler.program
    }

    /// The parsed form of `source` without its prefix, for a test's reference matcher.
    package static func syntax(_ source: String) throws(PatternError) -> PatternNode {
        let scalars = Array(source.unicodeScalars)
        let prefix = Array(caseSensitivePrefix.unicodeScalars)
        var parser = PatternParser(scalars, startingAt: scalars.starts(with: prefix) ? prefix.count : 0)
        return try parser.parse()
    }

    /// How many instructions the compiled program has.
    public var stateCount: Int { program.count }

    public var description: String { source }

    public static func == (lhs: Pattern, rhs: Pattern) -> Bool { ExactText.same(lhs.source, rhs.source) }
    public func hash(into hasher: inout Hasher) { ExactText.hash(source, into: &hasher) }

    /// Whether the pattern matches somewhere in `text`.
    public func matches(_ text: String) -> Bool { run(text).matched }

    /// Runs the simulation: whether the pattern matches somewhere in `text`, and how many (instruction,
    /// position) visits it made, at most ``stateCount`` × (scalars of `text` + 1).
    package func run(_ text: String) -> (matched: Bool, steps: Int) {
        let raw = Array(text.unicodeScalars)
        let input = caseSensitive ? raw : raw.map(PatternFolding.fold)
        var current = PatternThreadList(capacity: program.count)
        var next = PatternThreadList(capacity: program.count)
        var stack: [Int] = []
        var steps = 0
        // Adds `pc` and everything reachable from it without reading a scalar, each instruction once per position.
        func follow(_ pc: Int, at position: Int, into list: inout PatternThreadList) {
            stack.append(pc)
            while let pc = stack.popLast() {
                guard list.insert(pc) else { continue }
                steps += 1
                switch program[pc] {
                case .jump(let target): stack.append(target)
                case .split(let first, let second):
                    stack.append(second)
                    stack.append(first)
                case .start: if position == 0 { stack.append(pc + 1) }
                case .end: if position == input.count { stack.append(pc + 1) }
                case .scalar, .any, .set, .match: break
                }
            }
        }
        for position in 0...input.count {
            follow(0, at: position, into: &current)  // a match may start at any position
            next.removeAll()
            for pc in current.members {
                let advance: Bool
                switch program[pc] {
                case .match: return (true, steps)
                case .scalar(let wanted): advance = position < input.count && input[position] == wanted
                case .any: advance = position < input.count && input[position] != "\n"
                case .set(let set): advance = position < input.count && set.contains(raw[position], foldingCase: !caseSensitive)
                case .jump, .split, .start, .end: advance = false
                }
                if advance { follow(pc + 1, at: position + 1, into: &next) }
            }
            swap(&current, &next)
        }
        return (false, steps)
    }
}

/// One instruction of a compiled ``Pattern``.
enum PatternInstruction: Hashable, Sendable {
    /// Reads this scalar (folded already when the pattern folds case).
    case scalar(Unicode.Scalar)
    case any
    case set(PatternSet)
    case start
    case end
    case split(Int, Int)
    case jump(Int)
    case match
}

/// The instructions live at one position of the simulation, each at most once, in the order added.
struct PatternThreadList {
    private(set) var members: [Int] = []
    private var present: [Bool]

    init(capacity: Int) { present = Array(repeating: false, count: capacity) }

    /// Adds `pc`; `false` when it was already there.
    mutating func insert(_ pc: Int) -> Bool {
        if present[pc] { return false }
        present[pc] = true
        members.append(pc)
        return true
    }

    mutating func removeAll() {
        for pc in members { present[pc] = false }
        members.removeAll(keepingCapacity: true)
    }
}
