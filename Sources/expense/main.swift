import ExpenseCLI
import Foundation

exit(ExpenseCLI.main(rawArguments: ExpenseCLI.processArguments(), environment: ProcessInfo.processInfo.environment))
