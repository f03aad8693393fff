// STUB: the linkparse command's logic lands here.
import LinkParse
