import ExpenseProtocol
import Foundation

/// The measured values (or why each is missing), rendered as the table and as JSON.
struct BenchReport {
    /// A measured value or the reason it is missing.
    enum Entry {
        case value(Double) // not money: a measurement
        case missing(String)
    }

    /// What each figure is judged against.
    var thresholds: Thresholds
    var entries: [String: Entry] = [:]
    /// Facts about the run printed with it (sizes, runs, quick).
    var context: [(String, String)] = []

    mutating func record(_ key: String, _ value: Double?, missing reason: @autoclosure () -> String = "not measured") { // not money: a measurement
        if let value, value.isFinite { entries[key] = .value(value) } else { entries[key] = .missing(reason()) }
    }

    mutating func markMissing(_ keys: [String], _ reason: String) {
        for key in keys where entries[key] == nil { entries[key] = .missing(reason) }
    }

    func value(_ key: String) -> Double? { // not money: a measurement
        if case .value(let v)? = entries[key] { return v }
        return nil
    }

    /// The target as the table shows it.
    static func targetText(_ target: Threshold) -> String {
        switch target {
        case .atLeast(let bound): return "≥ \(format(bound, bound < 10 ? 2 : 0))"
        case .atMost(let bound): return "≤ \(format(bound, bound < 10 ? 2 : 0))"
        case .ratio(let factor, let of, let atMost, _, let floor):
            return "\(atMost ? "≤" : "≥") \(format(factor, (factor * 10).rounded() == factor * 10 ? 1 : 2))× \(of)" + (floor.map { " and ≥ \(format($0, 0))" } ?? "")
        }
    }

    /// One target's verdict: its text, the ratio to its reference, pass or fail (`nil`: not judged) and a note on
    /// what the ratio compares with.
    struct Judgment {
        var target: String
        var ratio: Double? // not money: a measurement
        var pass: Bool?
        var note: String
        /// The figure the ratio is to, for a ratio target.
        var of: String?
    }

    /// The figure judged against each of its targets (none: no target).
    func judge(_ figure: Figure) -> [Judgment] {
        (thresholds.targets[figure.key] ?? []).map { judge(value(figure.key), against: $0) }
    }

    private func judge(_ value: Double?, against threshold: Threshold) -> Judgment { // not money: a measurement
        let target = Self.targetText(threshold)
        var judgment = Judgment(target: target, ratio: nil, pass: nil, note: "", of: nil)
        if case .ratio(_, let of, _, _, _) = threshold { judgment.of = of }
        guard let value else { return judgment }
        switch threshold {
        case .atLeast(let bound):
            (judgment.ratio, judgment.pass) = (value / bound, value >= bound)
        case .atMost(let bound):
            (judgment.ratio, judgment.pass) = (value / bound, value <= bound)
        case .ratio(let factor, let of, let atMost, let anchor, let floor):
            let measured = self.value(of)
            guard let reference = measured ?? anchor, reference > 0 else { return judgment }
            let ratio = value / reference
            judgment.ratio = ratio
            judgment.pass = (atMost ? ratio <= factor : ratio >= factor) && value >= (floor ?? 0)
            judgment.note = measured == nil ? "vs results.md anchor \(Self.format(reference, 0))" : "vs \(of), this run"
        }
        return judgment
    }

    /// The figures among `figures` that were measured and miss a target, one line per target missed (`bench --check`).
    func failures(figures: [Figure]) -> [String] {
        figures.flatMap { figure -> [String] in
            guard let value = value(figure.key) else { return [] }
            return judge(figure).filter { $0.pass == false }.map { judgment in
                "\(figure.key) = \(Self.format(value, figure.decimals)) \(figure.unit) misses \(judgment.target)"
                    + (judgment.note.isEmpty ? "" : " (\(judgment.note))")
            }
        }
    }

    /// The aligned table for stdout; the reasons of missing values are numbered notes below it. A figure with more
    /// than one target takes one row per target, the later ones without its label, key and value.
    func table(figures: [Figure]) -> String {
        var rows: [[String]] = [["figure", "key", "value", "target", "ratio", "pass"]]
        var notes: [String] = []
        for figure in figures {
            let valueText: String
            if case .value(let v)? = entries[figure.key] {
                valueText = "\(Self.format(v, figure.decimals)) \(figure.unit)"
            } else {
                var reason = "not run"
                if case .missing(let why)? = entries[figure.key] { reason = why }
                if !notes.contains(reason) { notes.append(reason) }
                valueText = "n/a [\((notes.firstIndex(of: reason) ?? 0) + 1)]"
            }
            let judgments = judge(figure)
            if judgments.isEmpty { rows.append([figure.label, figure.key, valueText, "", "", ""]) }
            for (index, judgment) in judgments.enumerated() {
                let ratioText = judgment.ratio.map { Self.format($0, 2) + "×" + (judgment.note.isEmpty ? "" : " (\(judgment.note))") } ?? ""
                let passText = judgment.pass.map { $0 ? "pass" : "FAIL" } ?? "—"
                rows.append((index == 0 ? [figure.label, figure.key, valueText] : ["", "", ""]) + [judgment.target, ratioText, passText])
            }
        }
        let widths = (0..<6).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var out = ""
        for (index, row) in rows.enumerated() {
            var line = ""
            for (column, cell) in row.enumerated() {
                let padded = column == 2 && index > 0 && !cell.hasPrefix("n/a")
                    ? String(repeating: " ", count: widths[column] - cell.count) + cell  // numbers right-aligned
                    : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                line += (column == 0 ? "" : "  ") + padded
            }
            while line.hasSuffix(" ") { line.removeLast() }
            out += line + "\n"
            if index == 0 { out += String(repeating: "-", count: widths.reduce(0, +) + 10) + "\n" }
        }
        for (number, reason) in notes.enumerated() { out += "[\(number + 1)] n/a: \(reason)\n" }
        for (key, value) in context { out += "\(key): \(value)\n" }
        return out
    }

    /// One JSON object: every figure key (number or null), then `missing`, `ratios`, `pass` and `context`.
    func json(figures: [Figure]) -> String {
        var members: [String] = []
        var missing: [String] = []
        var ratios: [String] = []
        var passes: [String] = []
        for figure in figures {
            switch entries[figure.key] {
            case .value(let v)?: members.append("\(Self.quote(figure.key)):\(Self.format(v, figure.decimals))")
            case .missing(let reason)?:
                members.append("\(Self.quote(figure.key)):null")
                missing.append("\(Self.quote(figure.key)):\(Self.quote(reason))")
            case nil:
                if figure.isShownOnlyWhenRun { continue }
                members.append("\(Self.quote(figure.key)):null")
                missing.append("\(Self.quote(figure.key)):\(Self.quote("not run"))")
            }
            // The ratio of a figure's first ratio target under its key, as before figures had several; those of
            // its other ratio targets under `KEY/OF`.
            for (index, judgment) in judge(figure).filter({ $0.of != nil }).enumerated() {
                guard let ratio = judgment.ratio, let of = judgment.of else { continue }
                ratios.append("\(Self.quote(index == 0 ? figure.key : figure.key + "/" + of)):\(Self.format(ratio, 3))")
            }
            let verdicts = judge(figure).compactMap(\.pass)
            if !verdicts.isEmpty { passes.append("\(Self.quote(figure.key)):\(!verdicts.contains(false))") }
        }
        members.append("\"missing\":{\(missing.joined(separator: ","))}")
        members.append("\"ratios\":{\(ratios.joined(separator: ","))}")
        members.append("\"pass\":{\(passes.joined(separator: ","))}")
        let contextMembers = context.map { "\(Self.quote($0.0)):\(Self.quote($0.1))" }
        members.append("\"context\":{\(contextMembers.joined(separator: ","))}")
        return "{" + members.joined(separator: ",") + "}"
    }

    /// Fixed decimals, no exponent, no grouping ("%.2f").
    static func format(_ value: Double, _ decimals: Int) -> String { // not money: a measurement
        String(format: "%.\(decimals)f", value)
    }

    /// A JSON string literal.
    static func quote(_ text: String) -> String { JSONWriter.quoted(text) }
}
