/// The guess in `did you mean 'list'?`: the known word nearest to a misspelt one, if any is near enough.
enum Suggestion {
    /// The candidate with the smallest edit distance to `word` (ignoring case; a swap of two neighbouring
    /// letters counts as one edit), allowed 1 edit for words of up to 4 letters and 2 for longer ones; else the
    /// only candidate that `word` (2 letters or more) begins. Ties go to the earlier candidate.
    static func nearest(to word: String, among candidates: [String]) -> String? {
        let typed = Array(word.lowercased())
        let allowed = typed.count <= 4 ? 1 : 2
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            if distance <= allowed, distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        if let best { return best.name }
        let extending = candidates.filter { typed.count >= 2 && $0.lowercased().hasPrefix(word.lowercased()) }
        return extending.count == 1 ? extending[0] : nil
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousRow: [Int] = []
        var row = Array(0...b.count)
        for i in 1...a.count {
            let beforePrevious = previousRow
            previousRow = row
            row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                row[j] = min(previousRow[j] + 1, row[j - 1] + 1, previousRow[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    row[j] = min(row[j], beforePrevious[j - 2] + 1)
                }
            }
        }
        return row[b.count]
    }
}
