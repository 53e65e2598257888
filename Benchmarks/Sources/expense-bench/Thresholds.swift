import ExpenseProtocol
import Foundation

/// A figure's target: a bound on its value, or a bound on its ratio to another figure of the same run.
enum Threshold: Equatable, Sendable {
    /// Value ≥ bound.
    case atLeast(Double) // not money: a measurement
    /// Value ≤ bound.
    case atMost(Double) // not money: a measurement
    /// Value ≥ (or, with `atMost`, ≤) `factor` × the figure `of` measured in the same run; when that figure was not
    /// measured, × `anchor` (a peer's figure from `../shared/peers/results.md`) if there is one. With `floor`, the
    /// value must also be ≥ it.
    case ratio(factor: Double, of: String, atMost: Bool, anchor: Double?, floor: Double?) // not money: a measurement
}

/// The targets of the figures, read from Benchmarks/thresholds.json: what a run is judged against is data beside
/// the bench, changed in one place and reviewed as a diff, not constants inside the harness.
struct Thresholds: Sendable {
    /// A figure's key and why its target could not be read.
    struct Invalid: Error, CustomStringConvertible {
        var key: String
        var reason: String
        var description: String { "thresholds: \(key): \(reason)" }
    }

    /// The targets of each figure that has any, by key, in the file's order: a figure may be judged against more
    /// than one peer (a push against Redis doing equal work and against plain `SET`), and must meet every target.
    var targets: [String: [Threshold]]

    init(targets: [String: [Threshold]]) { self.targets = targets }

    /// Reads `{"targets": {KEY: TARGET or [TARGET, …]}}`: each target one of `{"atMost": N}`, `{"atLeast": N}`,
    /// `{"atLeastTimes": F, "of": KEY, "anchor"?: N, "floor"?: N}` or `{"atMostTimes": F, "of": KEY}`.
    init(json bytes: [UInt8]) throws {
        guard let members = (try JSONParser.parse(bytes))["targets"]?.objectValue else {
            throw Invalid(key: "targets", reason: "expected an object of figure keys")
        }
        var targets: [String: [Threshold]] = [:]
        for (key, value) in members {
            let list = value.arrayValue ?? [value]
            guard !list.isEmpty else { throw Invalid(key: key, reason: "expected a target or a non-empty list of targets") }
            targets[key] = try list.map { try Self.target(key: key, $0) }
        }
        self.targets = targets
    }

    /// One target of `key`.
    private static func target(key: String, _ value: JSONValue) throws -> Threshold {
        guard let fields = value.objectValue else { throw Invalid(key: key, reason: "expected an object") }
        func number(_ name: String) throws -> Double? {
            guard let member = fields[name] else { return nil }
            guard case .number(let number) = member, let value = Double(number.text), value.isFinite, value > 0 else {
                throw Invalid(key: key, reason: "\(name) must be a positive number")
            }
            return value
        }
        let known: Set<String> = ["atMost", "atLeast", "atLeastTimes", "atMostTimes", "of", "anchor", "floor"]
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw Invalid(key: key, reason: "unknown member \(unknown)")
        }
        if let bound = try number("atMost"), fields.count == 1 {
            return .atMost(bound)
        } else if let bound = try number("atLeast"), fields.count == 1 {
            return .atLeast(bound)
        } else if let of = fields["of"]?.stringValue {
            let least = try number("atLeastTimes"), most = try number("atMostTimes")
            guard let factor = least ?? most, (least == nil) != (most == nil) else {
                throw Invalid(key: key, reason: "a ratio needs exactly one of atLeastTimes and atMostTimes")
            }
            return .ratio(factor: factor, of: of, atMost: most != nil, anchor: try number("anchor"),
                          floor: try number("floor"))
        } else {
            throw Invalid(key: key, reason: "expected atMost, atLeast, or a ratio (atLeastTimes or atMostTimes with of)")
        }
    }

    /// Reads the thresholds file at `path`.
    init(contentsOf path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Invalid(key: path, reason: "cannot read the file (give --thresholds FILE)")
        }
        try self.init(json: Array(data))
    }

    /// The thresholds file of this checkout: Benchmarks/thresholds.json, beside the package.
    static let defaultPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("thresholds.json").path

    /// The keys this file names, as a figure or as a ratio's reference, that no figure has: a typo would otherwise
    /// leave a figure unjudged, or judged only against its anchor.
    func unknownKeys(figures: [Figure]) -> [String] {
        let keys = Set(figures.map(\.key))
        var named = Set(targets.keys)
        for case .ratio(_, let of, _, _, _) in targets.values.joined() { named.insert(of) }
        return named.filter { !keys.contains($0) }.sorted()
    }
}
