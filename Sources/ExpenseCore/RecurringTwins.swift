import FoundationEssentials

/// Recurring rules that look the same — amount, currency, category, interval and start — are probably one
/// charge entered twice (on two machines, or twice on one) and would charge it twice. Until the person says
/// they are two charges (``RecurringRule/distinctFrom``, `expense recurring keep-both`) or keeps one
/// (`expense recurring merge`), such rules form an open twin group: only its first rule makes occurrences, and
/// not on a date another rule of the group already holds one; the others are held (none made).
///
/// The first rule is the one entered first (``RecurringRule/created``; one without the field before any with
/// it), then the lowest id: a rule entered again on a second machine is held there at once, while the first
/// machine, which does not know it yet, goes on with its own. Every machine holding the same rules computes the
/// same groups and the same first rule, so machines that know both never charge a date twice.
public struct RecurringTwins: Sendable, Equatable {
    /// For each rule of an open group, the other rules of its group, by id.
    public private(set) var others: [UUID: [UUID]] = [:]
    /// The rules whose occurrences are held: every rule of an open group but its first.
    public private(set) var held: Set<UUID> = []
    /// The open groups, each by id with its first (the one that makes occurrences) first.
    public private(set) var groups: [[UUID]] = []

    /// The open groups among `rules` (live rules; a removed rule is in none).
    public init(_ rules: [RecurringRule]) {
        let byKey = Dictionary(grouping: rules, by: Key.init)
        func order(_ rule: RecurringRule) -> (Int64, String) { (rule.created ?? Int64.min, UUIDText.lowercased(rule.id)) }
        for group in byKey.values where group.count > 1 {
            for component in Self.components(group) where component.count > 1 {
                let ordered = component.sorted { order($0) < order($1) }
                for rule in ordered { others[rule.id] = ordered.map(\.id).filter { $0 != rule.id } }
                held.formUnion(ordered.dropFirst().map(\.id))
                groups.append(ordered.map(\.id))
            }
        }
        groups.sort { UUIDText.lowercased($0[0]) < UUIDText.lowercased($1[0]) }
    }

    /// Whether `a` and `b` look the same (the same key), whether or not they were kept apart.
    public static func lookTheSame(_ a: RecurringRule, _ b: RecurringRule) -> Bool { Key(a) == Key(b) }

    /// What makes two rules look the same.
    private struct Key: Hashable {
        var amount: Int64, currency: Currency, category: String, every: Int, unit: RecurrenceUnit, start: CalendarDay
        init(_ rule: RecurringRule) {
            (amount, currency, category, every, unit, start) = (rule.amount, rule.currency, rule.category, rule.every, rule.unit, rule.start)
        }
    }

    /// The groups of rules linked by "not kept apart" (either side's ``RecurringRule/distinctFrom`` names the
    /// other), among rules that all look the same.
    private static func components(_ group: [RecurringRule]) -> [[RecurringRule]] {
        var unvisited = group
        var result: [[RecurringRule]] = []
        while let first = unvisited.popLast() {
            var component = [first]
            var frontier = [first]
            while let rule = frontier.popLast() {
                let linked = unvisited.filter { !$0.distinctFrom.contains(rule.id) && !rule.distinctFrom.contains($0.id) }
                unvisited.removeAll { candidate in linked.contains { $0.id == candidate.id } }
                component += linked
                frontier += linked
            }
            result.append(component)
        }
        return result
    }
}
