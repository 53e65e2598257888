import FoundationEssentials

/// The one validation of an expense, called by the CLI, the importer, the sync client and the daemon alike.
public enum ExpenseValidator {
    /// Turns a draft into a validated expense.
    ///
    /// Fields are checked in the order id, amount, currency, category, date, note, paidBy, split, charged, tags,
    /// parts, source; the first problem is thrown (a split without a payer is a missing `paidBy`).
    /// A missing `currency` is an error here: callers that have a default (the configured currency, the
    /// ledger's currency) fill it in first. A missing `note` is the empty note.
    /// - Throws: ``ValidationError``.
    public static func validate(_ draft: ExpenseDraft) throws -> Expense {
        try validate(draft, byteLimits: true)
    }

    /// ``validate(_:)`` for an expense read back (from a cache, or pulled from the daemon) rather than entered or
    /// sent: every rule but the byte limits of category and note (Protocol.md §6), which are newer than records
    /// stored before them. Such a record is read and shown as it is, so an upgrade never makes a cache or a pull
    /// unreadable; any change to it goes through ``validate(_:)`` again, byte limits included.
    /// - Throws: ``ValidationError``.
    public static func validateStored(_ draft: ExpenseDraft) throws -> Expense {
        try validate(draft, byteLimits: false)
    }

    /// ``validateStored(_:)`` for a record read with typed values and none of the optional fields (the usual pulled
    /// record): the same checks of the same values, without making a draft of them.
    /// - Throws: ``ValidationError``.
    public static func validateStored(id: UUID, amount: Int64, currency: Currency, category: String, date: CalendarDay,
                                      note: String) throws -> Expense {
        try Money.checkRange(amount)
        return Expense(id: id, amount: amount, currency: currency, category: try checkedCategory(category, byteLimits: false),
                       date: date, note: try checkedNote(note, field: .note, byteLimits: false))
    }

    private static func validate(_ draft: ExpenseDraft, byteLimits: Bool) throws -> Expense {
        guard let id = try draft.id?.resolved(validateID) else { throw ValidationError.missingField(.id) }
        guard let amount = draft.amount else { throw ValidationError.missingField(.amount) }
        try Money.checkRange(amount)
        guard let currency = try draft.currency?.resolved(validateCurrency) else {
            throw ValidationError.missingField(.currency)
        }
        guard let categoryText = draft.category else { throw ValidationError.missingField(.category) }
        let category = try checkedCategory(categoryText, byteLimits: byteLimits)
        guard let date = try draft.date?.resolved(validateDate) else { throw ValidationError.missingField(.date) }
        let note = try checkedNote(draft.note ?? "", field: .note, byteLimits: byteLimits)
        // An optional field not given is checked as its empty value would be (none), without the call: a pulled
        // record gives none of them.
        let paidBy = try draft.paidBy.flatMap(validatePaidBy)
        let split = try draft.split.flatMap { try validateSplit($0, amount: amount, currency: currency) }
        if split != nil && paidBy == nil { throw ValidationError.missingField(.paidBy) }
        let charged = try draft.charged.flatMap(validateCharged)
        let tags = try draft.tags.map(validateTags) ?? []
        let parts = try draft.parts.flatMap { try validateParts($0, amount: amount, currency: currency, category: category) }
        // The bank's text is a note's text as the bank gave it: the note's one rule, naming its own field.
        // Most expenses have none: an absent or empty original text is the empty text, without the rule's scan.
        var source = ""
        if let text = draft.source, !text.isEmpty { source = try checkedNote(text, field: .source, byteLimits: byteLimits) }
        return Expense(id: id, amount: amount, currency: currency, category: category, date: date, note: note, paidBy: paidBy,
                       split: split, charged: charged, tags: tags, parts: parts, source: source)
    }

    /// Tags as stored and sent: each one a tag (``ExpenseTags/problem(with:)``), at most
    /// ``ExpenseTags/maximumCount`` different ones; given twice (by its bytes) is given once.
    /// - Returns: the tags sorted by their bytes, each once.
    /// - Throws: ``ValidationError/invalidTags(_:)``.
    public static func validateTags(_ tags: [String]) throws -> [String] {
        if tags.isEmpty { return [] }
        for tag in tags { if let problem = ExpenseTags.problem(with: tag) { throw ValidationError.invalidTags(problem) } }
        let set = ExpenseTags.normalized(tags)
        guard set.count <= ExpenseTags.maximumCount else {
            throw ValidationError.invalidTags("\(set.count) tags; an expense has at most \(ExpenseTags.maximumCount)")
        }
        return set
    }

    /// Parts as stored and sent (``ExpenseParts/init(text:)``), none naming `category` and adding up to less than
    /// `amount` (``ExpenseParts/validate(amount:currency:category:)``); empty for none.
    /// - Throws: ``ValidationError/invalidParts(_:)``.
    public static func validateParts(_ text: String, amount: Int64, currency: Currency, category: String) throws -> ExpenseParts? {
        if text.isEmpty { return nil }
        let parts = try ExpenseParts(text: text)
        try parts.validate(amount: amount, currency: currency, category: category)
        return parts
    }

    /// The amount charged as stored and sent: minor units of the ledger's currency, 1 … ``ExpenseRules/maximumAmount``,
    /// or 0 for none. Which currency that is the validator cannot know (the ledger's); whether it differs from the
    /// expense's own is the CLI's rule (`--paid` on an expense in the ledger's currency is refused there).
    public static func validateCharged(_ minorUnits: Int64) throws -> Int64? {
        if minorUnits == 0 { return nil }
        guard (1...ExpenseRules.maximumAmount).contains(minorUnits) else {
            throw ValidationError.invalidCharged("\(minorUnits) is out of range: an amount charged is 1 to "
                                                 + "\(ExpenseRules.maximumAmount) minor units of the ledger's currency, or 0 for none")
        }
        return minorUnits
    }

    /// A payer as stored and sent: a member's id in lower case, or empty for none. Whether that member exists and
    /// has not left is a rule across records: the CLI checks it against its members and the daemon against its own.
    public static func validatePaidBy(_ text: String) throws -> UUID? {
        if text.isEmpty { return nil }
        guard let id = UUIDText.parse(text), UUIDText.lowercased(id) == text else { throw ValidationError.invalidPaidBy(text) }
        return id
    }

    /// A split as stored and sent (``SplitSpec/init(text:)``), its exact amounts adding up to `amount`; empty for none.
    public static func validateSplit(_ text: String, amount: Int64, currency: Currency) throws -> SplitSpec? {
        if text.isEmpty { return nil }
        do throws(SplitError) {
            let split = try SplitSpec(text: text)
            try split.validate(amount: amount, currency: currency)
            return split
        } catch {
            throw ValidationError.invalidSplit(error)
        }
    }

    /// A UUID in either case.
    public static func validateID(_ text: String) throws -> UUID {
        guard let id = UUIDText.parse(text) else { throw ValidationError.invalidId(text) }
        return id
    }

    /// An active ISO 4217 code, upper case.
    public static func validateCurrency(_ text: String) throws -> Currency {
        guard let currency = Currency(code: text) else { throw ValidationError.invalidCurrency(text) }
        return currency
    }

    /// The category trimmed of whitespace and newlines, 1 to 64 characters and at most 256 bytes of UTF-8, no
    /// control characters.
    public static func validateCategory(_ text: String) throws -> String {
        try checkedCategory(text, byteLimits: true)
    }

    private static func checkedCategory(_ text: String, byteLimits: Bool) throws -> String {
        if isPlainASCII(text, atMost: ExpenseRules.maximumCategoryLength, visibleEnds: true) { return text }
        // Foundation's trimming is slow; text that starts and ends with a visible ASCII character has nothing to trim.
        let trimmed = hasVisibleASCIIEnds(text) ? text : text.trimmingWhitespace
        guard !trimmed.isEmpty else { throw ValidationError.emptyCategory }
        guard !containsControl(trimmed, allowingTabAndNewline: false) else { throw ValidationError.invalidText(.category) }
        if let limit = exceededLimit(trimmed, characters: ExpenseRules.maximumCategoryLength,
                                     bytes: byteLimits ? ExpenseRules.maximumCategoryBytes : Int.max) {
            throw ValidationError.categoryTooLong(limit)
        }
        return trimmed
    }

    /// A real day `YYYY-MM-DD` from 1900-01-01 to 9999-12-31.
    public static func validateDate(_ text: String) throws -> CalendarDay {
        guard let day = CalendarDay(text) else { throw ValidationError.invalidDate(text) }
        return day
    }

    /// A note of 0 to 300 characters and at most 1,200 bytes of UTF-8, stored exactly as given; tab and newline are
    /// its only allowed control characters.
    public static func validateNote(_ text: String) throws -> String {
        try checkedNote(text, field: .note, byteLimits: true)
    }

    /// An original text as an import read it (``Expense/source``): the note's rule, since it is the text a note
    /// starts as, its refusals naming `source`.
    /// - Throws: ``ValidationError/invalidText(_:)`` or ``ValidationError/sourceTooLong(_:)``.
    public static func validateSource(_ text: String) throws -> String {
        try checkedNote(text, field: .source, byteLimits: true)
    }

    /// The one text rule of a note and of an original text (`field`, which a refusal names).
    private static func checkedNote(_ text: String, field: ExpenseField, byteLimits: Bool) throws -> String {
        if isPlainASCII(text, atMost: ExpenseRules.maximumNoteLength, visibleEnds: false) { return text }
        guard !containsControl(text, allowingTabAndNewline: true) else { throw ValidationError.invalidText(field) }
        if let limit = exceededLimit(text, characters: ExpenseRules.maximumNoteLength,
                                     bytes: byteLimits ? ExpenseRules.maximumNoteBytes : Int.max) {
            throw field == .source ? ValidationError.sourceTooLong(limit) : ValidationError.noteTooLong(limit)
        }
        return text
    }

    /// Which limit `text` passes, characters before bytes (the limit a person thinks in is named when both are
    /// passed); `nil` when it is within both.
    ///
    /// Text of at most `characters` bytes cannot hold more characters, so the usual short text is never counted
    /// grapheme by grapheme; text over `bytes` bytes is counted only up to `characters + 1`.
    private static func exceededLimit(_ text: String, characters: Int, bytes: Int) -> TextLimit? {
        let byteCount = text.utf8.count
        if byteCount <= characters { return nil }
        if text.dropFirst(characters).isEmpty == false { return .characters }
        return byteCount > bytes ? .bytes : nil
    }

    /// Whether `text` passes every check of a category (`visibleEnds`) or of a note as it is, by its bytes alone:
    /// at most `atMost` bytes, each printable ASCII (a note's also tab or newline), a category's first and last
    /// `!` … `~`. Such text has nothing to trim and no control, and its characters are its bytes (the one ASCII
    /// pair that is one grapheme, CR LF, holds a control), so it is within both limits. The checks below decide
    /// anything else; this is the usual text, checked in one pass over its bytes (a first sync checks a million
    /// categories and notes).
    private static func isPlainASCII(_ text: String, atMost maximum: Int, visibleEnds: Bool) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count <= maximum else { return false }
            if visibleEnds {
                guard let first = bytes.first, let last = bytes.last, (0x21...0x7E).contains(first),
                      (0x21...0x7E).contains(last) else { return false }
            }
            for byte in bytes where byte < 0x20 || byte > 0x7E {
                guard !visibleEnds, byte == 0x09 || byte == 0x0A else { return false }
            }
            return true
        }
    }

    /// Whether the first and the last byte are ASCII `!` … `~` (so neither end is whitespace or a newline).
    private static func hasVisibleASCIIEnds(_ text: String) -> Bool {
        guard let first = text.utf8.first, let last = text.utf8.last else { return false }
        return (0x21...0x7E).contains(first) && (0x21...0x7E).contains(last)
    }

    private static func containsControl(_ text: String, allowingTabAndNewline: Bool) -> Bool {
        // ASCII text (the usual case) is checked byte by byte: its controls are exactly 0x00–0x1F and 0x7F.
        var isASCII = true
        for byte in text.utf8 {
            if byte >= 0x80 { isASCII = false; break }
            if byte < 0x20 || byte == 0x7F, !(allowingTabAndNewline && (byte == 0x09 || byte == 0x0A)) { return true }
        }
        if isASCII { return false }
        return text.unicodeScalars.contains { scalar in
            guard scalar.properties.generalCategory == .control else { return false }
            return !(allowingTabAndNewline && (scalar == "\t" || scalar == "\n"))
        }
    }
}
