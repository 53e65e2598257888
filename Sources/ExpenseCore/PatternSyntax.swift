/// The parsed form of a ``Pattern``: what the compiler turns into a program, and what a test's reference matcher
/// walks. Characters are Unicode scalars.
package indirect enum PatternNode: Hashable, Sendable {
    /// Matches the empty text.
    case empty
    /// One scalar.
    case scalar(Unicode.Scalar)
    /// `.`: any scalar but a newline.
    case any
    /// A class: `[a-z]`, `[^…]`, `\d`, `\w`, `\s` and their negations.
    case set(PatternSet)
    /// `^`: the start of the text.
    case start
    /// `$`: the end of the text.
    case end
    case concatenation([PatternNode])
    case alternation([PatternNode])
    /// `*`, `+`, `?`, `{m,n}`: at least `minimum` and at most `maximum` (`nil`: no limit) times.
    case repetition(PatternNode, minimum: Int, maximum: Int?)
}

/// A character class: ranges of scalars, possibly negated.
package struct PatternSet: Hashable, Sendable {
    package var ranges: [ClosedRange<UInt32>]
    package var negated: Bool

    /// Whether `scalar` is in the class, comparing its folded and upper-case forms too when `foldingCase`.
    package func contains(_ scalar: Unicode.Scalar, foldingCase: Bool) -> Bool {
        func inRanges(_ value: UInt32) -> Bool { ranges.contains { $0.contains(value) } }
        var found = inRanges(scalar.value)
        if !found && foldingCase {
            found = inRanges(PatternFolding.fold(scalar).value) || inRanges(PatternFolding.upper(scalar).value)
        }
        return found != negated
    }

    static let digit = PatternSet(ranges: [48...57], negated: false)
    static let word = PatternSet(ranges: [48...57, 65...90, 95...95, 97...122], negated: false)
    static let space = PatternSet(ranges: [9...13, 32...32], negated: false)
}

/// Simple case folding: a scalar whose lower-case mapping is one scalar folds to it; any other (such as `ß`,
/// whose full folding is two scalars) stays itself, so one scalar of the text is always one scalar compared.
package enum PatternFolding {
    package static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        // ASCII without the mapping's string: most bank text is ASCII, and the mapping allocates.
        if scalar.isASCII { return ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32) ?? scalar : scalar }
        return single(scalar.properties.lowercaseMapping) ?? scalar
    }

    package static func upper(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.isASCII { return ("a"..."z").contains(scalar) ? Unicode.Scalar(scalar.value - 32) ?? scalar : scalar }
        return single(scalar.properties.uppercaseMapping) ?? scalar
    }

    private static func single(_ text: String) -> Unicode.Scalar? {
        var scalars = text.unicodeScalars.makeIterator()
        guard let first = scalars.next(), scalars.next() == nil else { return nil }
        return first
    }
}
