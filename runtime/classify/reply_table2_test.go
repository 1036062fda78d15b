package classify

// replyTable2 is the second set, written after the reader's rules were:
// replies the rules were not tuned on (see TestReplyTable2).
var replyTable2 = []replyCase{}
