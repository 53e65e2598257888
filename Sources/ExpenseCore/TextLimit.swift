/// Which bound of a text field a value passed: what a person sees, or what it costs on the wire and on disk.
///
/// Both bounds hold for every category and note: the grapheme limit keeps text readable, the byte limit keeps
/// every record and every mutation small enough to fit in one protocol line whatever the characters (one
/// grapheme cluster may hold any number of combining marks).
public enum TextLimit: String, Hashable, Sendable {
    /// The limit in characters (grapheme clusters).
    case characters
    /// The limit in bytes of UTF-8.
    case bytes
}
