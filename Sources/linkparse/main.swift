// The `linkparse` executable. All logic lives in the LinkParseCLI library, where tests can drive it.
import LinkParseCLI

LinkParseCommand.main()
