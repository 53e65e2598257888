import ExpenseCore
import Foundation
import Testing

/// docs/modules.md's checklists for a new record kind and a new field of one, held to the code: each names few
/// files, every file it names exists (a `<Kind>` in a path stands for a kind's name), and every source file that
/// names a particular kind besides expenses is one a checklist names — so a kind that starts to need another
/// file fails here until the checklist says so (or the need goes).
@Suite struct ChecklistTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `Sources/…` paths of the numbered list under the paragraph starting with `heading`.
    static func checklist(_ heading: String) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/modules.md"), encoding: .utf8)
        let start = try #require(text.range(of: "\n" + heading), "docs/modules.md has no checklist '\(heading)'")
        var paths: [String] = []
        var inList = false
        for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst() {
            let numbered = line.first?.isNumber == true && line.contains(". `Sources/")
            if numbered {
                inList = true
                if let open = line.range(of: "`Sources/"), let close = line[open.upperBound...].firstIndex(of: "`") {
                    paths.append("Sources/" + line[open.upperBound..<close])
                }
            } else if inList && !line.hasPrefix("   ") {
                break
            }
        }
        return paths
    }

    /// Whether `path` is the checklist's `pattern`, a `<Kind>` standing for any name.
    static func matches(_ path: String, _ pattern: String) -> Bool {
        guard let hole = pattern.range(of: "<Kind>") else { return path == pattern }
        let head = pattern[..<hole.lowerBound], tail = pattern[hole.upperBound...]
        return path.hasPrefix(head) && path.hasSuffix(tail) && path.count > head.count + tail.count
    }

    @Test("the checklist for a new record kind names at most six source files, each of which exists")
    func recordKindChecklist() throws {
        let paths = try Self.checklist("Adding a record kind besides expenses")
        #expect(!paths.isEmpty && paths.count <= 6, "\(paths)")
        try Self.expectExisting(paths)
    }

    @Test("the checklist for a new field of a budget, rule or setting names at most ten source files, each of which exists")
    func fieldChecklist() throws {
        let paths = try Self.checklist("Adding a field to a budget, rule or setting")
        #expect(!paths.isEmpty && paths.count <= 10, "\(paths)")
        try Self.expectExisting(paths)
    }

    /// Files whose code names an expense's `note` although a new field needs nothing there, each with why.
    static let noteWithoutANewField: [String: String] = [
        "Sources/ExpenseCore/RecurringRule.swift": "a recurring rule's own note",
        "Sources/ExpenseClient/SplitwiseImporter.swift": "a Splitwise row's Description becomes the note; a field added later takes its default (completeCreation)",
        "Sources/ExpenseCore/LedgerDataValidator.swift": "a recurring rule's own note",
        "Sources/ExpenseCLI/ExpenseRunner+Recurring.swift": "a recurring rule's own note",
        "Sources/ExpenseCLI/ExpenseCommands+Recurring.swift": "a recurring rule's own note",
        "Sources/ExpenseCore/ValidationError.swift": "the field of the note's own error code (a new field needs one only for a new code)",
        "Sources/ExpenseClient/ImportIdentity.swift": "an import's derived id, from the first five fields on purpose",
        "Sources/ExpenseClient/ImportRow.swift": "an import's derived id, from the first five fields on purpose",
        "Sources/ExpenseClient/CSVImporter.swift": "the columns of the first export format, which an import requires",
        "Sources/ExpenseClient/LocalLedger+Conflicts.swift": "a resolution that changes nothing carries one field unchanged",
        "Sources/ExpenseClient/SyncRound.swift": "`produced.note(_:)`, another word",
        "Sources/ExpenseProtocol/PullPageScanner.swift": "the optional fast path for the daemon's own layout",
        "Sources/ExpenseCLI/JournalExport.swift": "a journal's description is the note; it holds what a ledger tool has a place for, not every field",
        "Sources/ExpenseCore/ImportRule+Apply.swift": "a rule reads the note (and the bank's text) and may set it; rules act on chosen fields, not every field",
        "Sources/ExpenseCLI/RuleDisplay.swift": "what a rule changed: the fields rules can set, not every field",
        "Sources/ExpenseServer/PostgresLedgerStore+Schema.swift": "shipped migrations spell the columns they had; a new field needs none (extras, field_versions)",
    ]

    /// Where an expense is shown to a person: a field that should show is added there too (docs/modules.md
    /// names them after the checklist), but nothing is lost or wrong without it.
    static let shownIn = ["Sources/ExpenseCLI/ExpenseTable.swift", "Sources/ExpenseCLI/HTMLReport.swift",
                          "Sources/ExpenseCLI/ExpenseRunner+History.swift"]

    /// The expense-field checklist: at most eight files, each exists, and every source file whose code names
    /// an expense's note (`.note`, `note:`, `"note"`, outside comments) is one it names, one where the field is
    /// shown, or one with a reason above — so a file that starts to need every new field fails here until the
    /// checklist says so (or the need goes).
    @Test("the checklist for a new expense field names at most eight source files, each of which exists, and no other file names a field")
    func expenseFieldChecklist() throws {
        let paths = try Self.checklist("Adding a field to an expense")
        #expect(!paths.isEmpty && paths.count <= 8, "\(paths)")
        try Self.expectExisting(paths + Self.shownIn + Array(Self.noteWithoutANewField.keys))
        let modules = try String(contentsOf: Self.root.appendingPathComponent("docs/modules.md"), encoding: .utf8)
        for file in Self.shownIn { #expect(modules.contains(file), "docs/modules.md does not name \(file)") }
        let sources = Self.root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        let naming = try Regex(#"\.note\b|\bnote:|"note""#)
        var found = 0
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            guard code.contains(where: { $0.contains(naming) }) else { continue }
            found += 1
            let path = "Sources/" + file
            #expect(paths.contains(path) || Self.shownIn.contains(path) || Self.noteWithoutANewField[path] != nil,
                    "\(path) names an expense's note but the checklist does not name it")
        }
        #expect(found >= paths.count, "the search found \(found) files: it is broken")
    }

    /// Every file naming a budget or a setting by its `RecordKind` case is one the record-kind checklist names.
    /// (Recurring rules are left out: materialising their occurrences is a feature of that kind, not what every
    /// kind needs.) `ExpenseRunner+DataConflicts.swift` may name them too: its footer's optional command names.
    @Test("only the files of the record-kind checklist name a particular kind besides expenses")
    func kindsAreKnownOnlyWhereTheChecklistSays() throws {
        let patterns = try Self.checklist("Adding a record kind besides expenses")
            + ["Sources/ExpenseCLI/ExpenseRunner+DataConflicts.swift"]
        let kinds = [RecordKind.budget, .setting].map(\.rawValue)
        let sources = Self.root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        var naming: [String] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            let names = kinds.contains { kind in
                text.contains("RecordKind.\(kind)") || text.contains("(.\(kind),") || text.contains("(.\(kind))")
                    || text.contains(": .\(kind)") || text.contains("case .\(kind)") || text.contains("[.\(kind)")
                    || text.contains(", .\(kind)")
            }
            if names { naming.append("Sources/" + file) }
        }
        #expect(!naming.isEmpty, "no file names a kind: the search is broken")
        for file in naming.sorted() {
            #expect(patterns.contains { Self.matches(file, $0) }, "\(file) names a record kind but no checklist names it")
        }
    }

    /// The expense's columns are listed by `ExpenseColumns` and `RecordColumns` only: a statement that spells
    /// them itself would miss the next field. Migrations keep their own text (they describe a past schema).
    @Test("no statement but a migration's spells an expense's columns")
    func expenseColumnsAreListedOnce() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        let frozen = ["Schema.swift", "BlobIds.swift"]
        var spelling: [String] = []
        for file in files where !frozen.contains(where: { file.hasSuffix($0) || file.hasPrefix($0) }) {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            if text.contains("category, day") || text.contains("money_version, category_version") { spelling.append(file) }
        }
        #expect(spelling.isEmpty, "these files list an expense's columns themselves: \(spelling)")
    }

    private static func expectExisting(_ paths: [String]) throws {
        let sources = root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.map { "Sources/" + $0 }
        for pattern in paths {
            #expect(files.contains { matches($0, pattern) }, "docs/modules.md names \(pattern), which matches no file")
        }
    }
}
