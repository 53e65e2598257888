/// The one description of an expense's tags: what a tag may be, and how a set of them is compared, ordered,
/// written as text and merged.
///
/// A tag is 1 to ``maximumLength`` Unicode scalars, with no whitespace (Unicode's White_Space), nothing
/// ``DisplayText/isHidden(_:)`` (control characters, line and paragraph separators, bidirectional overrides) and no comma (its
/// list separator, so the text form `food,work` a CSV cell and a database column hold reads back the same set);
/// an expense has at most ``maximumCount``. Tags are compared by their bytes (``ExactText``: "café" in NFC and in
/// NFD are two tags) and kept sorted by their bytes, so one set has one text.
public enum ExpenseTags {
    /// The most tags one expense may have.
    public static let maximumCount = 16
    /// The most Unicode scalars a tag may have (so at most 128 bytes of UTF-8).
    public static let maximumLength = 32
    /// What separates tags in their text form.
    public static let separator: Character = ","

    /// Whether `a` sorts before `b`: by their UTF-8 bytes, the order tags are stored and sent in.
    public static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    /// `tags` sorted by their bytes, each once (by its bytes).
    public static func normalized(_ tags: [String]) -> [String] {
        var result: [String] = []
        for tag in tags.sorted(by: precedes) where !(result.last.map { ExactText.same($0, tag) } ?? false) { result.append(tag) }
        return result
    }

    /// Whether `tags` holds `tag` (by its bytes).
    public static func contains(_ tags: [String], _ tag: String) -> Bool { tags.contains { ExactText.same($0, tag) } }

    /// Whether `tags` (an expense's) hold every one of `wanted` (`--tag`, all of them): the one rule of every filter by
    /// tags, local and the daemon's.
    public static func containsAll(_ tags: [String], _ wanted: [String]) -> Bool { wanted.allSatisfy { contains(tags, $0) } }

    /// Whether `a` and `b` are the same set (each sorted and unique, as an expense holds them).
    public static func same(_ a: [String], _ b: [String]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { ExactText.same($0, $1) }
    }

    /// The text form: the tags joined by commas (empty for none).
    public static func text(_ tags: [String]) -> String {
        // Most expenses have no tag, and every one is written as a column and a record: no join for them.
        switch tags.count {
        case 0: ""
        case 1: tags[0]
        default: tags.joined(separator: String(separator))
        }
    }

    /// The tags of a text form (empty text: none); nothing is checked here (``ExpenseValidator`` does).
    public static func parse(_ text: String) -> [String] {
        text.split(separator: separator, omittingEmptySubsequences: true).map(String.init)
    }

    /// Why `tag` is not a tag, or `nil` when it is one.
    public static func problem(with tag: String) -> String? {
        let count = tag.unicodeScalars.count
        if count == 0 { return "a tag cannot be empty" }
        if count > maximumLength {
            return "tag \(DisplayText.quoted(tag)) has \(count) characters; a tag has at most \(maximumLength)"
        }
        for scalar in tag.unicodeScalars {
            if scalar == "," { return "tag \(DisplayText.quoted(tag)) has a comma, which separates tags" }
            // Hidden: what a display never shows as it is (controls, line separators, direction overrides).
            if scalar.properties.isWhitespace || DisplayText.isHidden(scalar) {
                return "tag \(DisplayText.quoted(tag)) has whitespace or a control character"
            }
        }
        return nil
    }

    /// The three-way merge of a tag set edited on one side while it changed on the other, each change of a tag
    /// kept unless both sides changed that tag in opposite directions.
    ///
    /// - Parameters:
    ///   - base: the set the edit was made on.
    ///   - mine: the set the edit sends.
    ///   - theirs: the set stored now.
    ///   - touched: every tag the other side added or removed since `base`, at any version in between (a tag
    ///     added there and removed again is touched although `theirs` and `base` agree on it).
    /// - Returns: the merged set, sorted; `nil` when a tag the edit adds was removed on the other side, or one it
    ///   removes was added there (the two sides disagree on it: a conflict to show).
    public static func merge(base: [String], mine: [String], theirs: [String], touched: [String]) -> [String]? {
        var merged = theirs
        for tag in mine where !contains(base, tag) {  // added by the edit
            if contains(theirs, tag) { continue }  // added on both sides: one tag
            if contains(touched, tag) { return nil }  // removed on the other side since the base
            merged.append(tag)
        }
        for tag in base where !contains(mine, tag) {  // removed by the edit
            guard contains(theirs, tag) else { continue }  // removed on both sides
            if contains(touched, tag) { return nil }  // removed and added again on the other side
            merged.removeAll { ExactText.same($0, tag) }
        }
        return normalized(merged)
    }
}
