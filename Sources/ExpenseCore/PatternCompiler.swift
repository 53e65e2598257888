/// Thompson's construction from a ``PatternNode``.
struct PatternCompiler {
    let foldingCase: Bool
    var program: [PatternInstruction] = []

    init(foldingCase: Bool) { self.foldingCase = foldingCase }

    /// How many instructions `node` compiles to, saturating far above ``Pattern/maximumStates`` so that a
    /// nested repetition cannot overflow.
    static func size(of node: PatternNode) -> Int {
        let ceiling = Pattern.maximumStates * 16
        func add(_ a: Int, _ b: Int) -> Int { min(a + b, ceiling) }
        func times(_ a: Int, _ b: Int) -> Int { a == 0 || b == 0 ? 0 : (a > ceiling / b ? ceiling : min(a * b, ceiling)) }
        switch node {
        case .empty: return 0
        case .scalar, .any, .set, .start, .end: return 1
        case .concatenation(let items): return items.reduce(0) { add($0, size(of: $1)) }
        case .alternation(let branches): return branches.reduce(2 * (branches.count - 1)) { add($0, size(of: $1)) }
        case .repetition(let inner, let minimum, let maximum):
            let one = size(of: inner)
            let required = times(minimum, one)
            guard let maximum else { return add(required, add(one, 2)) }
            return add(required, times(maximum - minimum, add(one, 1)))
        }
    }

    mutating func emit(_ node: PatternNode) {
        switch node {
        case .empty: break
        case .scalar(let scalar): program.append(.scalar(foldingCase ? PatternFolding.fold(scalar) : scalar))
        case .any: program.append(.any)
        case .set(let set): program.append(.set(set))
        case .start: program.append(.start)
        case .end: program.append(.end)
        case .concatenation(let items): for item in items { emit(item) }
        case .alternation(let branches):
            // split L1, next; L1: branch; jump end; next: split … ; the last branch falls through.
            var jumps: [Int] = []
            for (offset, branch) in branches.enumerated() {
                if offset == branches.count - 1 {
                    emit(branch)
                    break
                }
                let split = program.count
                program.append(.split(split + 1, 0))
                emit(branch)
                jumps.append(program.count)
                program.append(.jump(0))
                program[split] = .split(split + 1, program.count)
            }
            for jump in jumps { program[jump] = .jump(program.count) }
        case .repetition(let inner, let minimum, let maximum):
            for _ in 0..<minimum { emit(inner) }
            guard let maximum else {
                // loop: split body, exit; body; jump loop
                let loop = program.count
                program.append(.split(loop + 1, 0))
                emit(inner)
                program.append(.jump(loop))
                program[loop] = .split(loop + 1, program.count)
                return
            }
            // Each optional copy: split body, exit-of-all; a failed one skips the rest.
            var splits: [Int] = []
            for _ in minimum..<maximum {
                splits.append(program.count)
                program.append(.split(program.count + 1, 0))
                emit(inner)
            }
            for split in splits { program[split] = .split(split + 1, program.count) }
        }
    }
}
