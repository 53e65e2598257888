/// The limits every expense obeys, on the client and on the daemon alike.
public enum ExpenseRules {
    /// The largest amount in minor units: 2^53−1, the largest integer every JSON peer reads exactly.
    public static let maximumAmount: Int64 = 9_007_199_254_740_991
    /// The longest category, in grapheme clusters, after trimming.
    public static let maximumCategoryLength = 64
    /// The longest category in bytes of UTF-8, after trimming (four bytes for each of the 64 characters).
    public static let maximumCategoryBytes = 256
    /// The longest note, in grapheme clusters.
    public static let maximumNoteLength = 300
    /// The longest note in bytes of UTF-8 (four bytes for each of the 300 characters).
    public static let maximumNoteBytes = 1200
    /// The earliest day an expense may carry.
    public static let earliestDate = CalendarDay(uncheckedYear: 1900, month: 1, day: 1)
    /// The latest day an expense may carry.
    public static let latestDate = CalendarDay(uncheckedYear: 9999, month: 12, day: 31)
}
