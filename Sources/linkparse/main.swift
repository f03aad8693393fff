// The `linkparse` executable. All logic lives in the _LinkParseCLI library, where tests can drive it.
import _LinkParseCLI

LinkParseCommand.main()
