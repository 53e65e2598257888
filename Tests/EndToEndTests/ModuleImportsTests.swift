import TestSupport
import Foundation
import Testing

/// docs/modules.md promises that every target declares in `Package.swift` each module it imports (none works
/// through a transitive dependency) and that nothing is declared that no file imports. `Scripts/module-imports`
/// compares the two; this keeps the promise checked rather than written.
@Test(.enabled(if: ProtocolDocumentClient.python != nil || ProcessInfo.processInfo.environment["CI"] == "true",
               "python3 not found (/usr/bin/python3 or on PATH)"))
func everyTargetDeclaresExactlyTheModulesItImports() async throws {
    try await onOwnThread {
        let python = try #require(ProtocolDocumentClient.python, "python3 is needed under CI=true")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/module-imports").path
        let scratch = try ExpenseProcess()
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        let result = try ExpenseProcess.run(python, [script], environment: environment, scratch: scratch.directory, timeout: 60)
        #expect(result.status == 0, "\(result)")
    }
}
