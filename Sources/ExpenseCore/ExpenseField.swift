/// The fields of an expense, named as they are on the wire and in the CLI.
public enum ExpenseField: String, Sendable, Hashable, CaseIterable {
    case id, amount, currency, category, date, note
}
