/// Text comparison for `--match FIELD=TEXT`.
public enum RuleText {
    /// Whether `a` and `b` are the same once each scalar is simply case folded (``Pattern``'s folding).
    public static func sameFolded(_ a: String, _ b: String) -> Bool {
        a.unicodeScalars.map(PatternFolding.fold) == b.unicodeScalars.map(PatternFolding.fold)
    }
}
