import ExpenseCore
import Testing

/// What ``ExpenseField`` declares once: its conflict groups and the fixed-size arrays sized by them.
@Suite struct ExpenseFieldTests {
    @Test func fixedSizeArraysHoldOneElementPerFieldAndPerConflictGroup() {
        #expect(ExpenseField.PerValue<Int>.count == ExpenseField.values.count)
        #expect(ExpenseField.PerConflictGroup<Int>.count == ExpenseField.conflictGroups.count)
    }

    @Test func everyValueFieldBelongsToExactlyOneConflictGroupNamedOnce() {
        #expect(ExpenseField.conflictGroups == [.amount, .category, .date, .note, .paidBy, .tags, .source])
        #expect(ExpenseField.conflictGroups.map(\.conflictGroupName) == ["money", "category", "date", "note", "paidBy", "tags", "source"])
        for field in ExpenseField.values {
            #expect(field.conflictGroupIndex.map { ExpenseField.conflictGroups[$0].conflictGroup.contains(field) } == true, "\(field)")
            #expect(field.conflictGroup.allSatisfy { $0.conflictGroupName == field.conflictGroupName }, "\(field)")
        }
        #expect(ExpenseField.id.conflictGroupIndex == nil)
        #expect(Set(ExpenseField.conflictGroups.map(\.conflictGroupName)).count == ExpenseField.conflictGroups.count)
    }
}
