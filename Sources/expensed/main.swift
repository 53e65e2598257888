import ExpensedCLI
import Foundation

exit(await ExpensedCLI.main(arguments: Array(CommandLine.arguments.dropFirst())))
