import ExpenseCLI
import Foundation

exit(ExpenseCLI.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
