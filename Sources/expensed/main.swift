import ExpensedCLI
import Foundation

exit(await ExpensedCommand.main(arguments: Array(CommandLine.arguments.dropFirst())))
