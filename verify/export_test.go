package verify

// FilesHeld is, for a check of files, the most items of the objects held
// in memory at once and the differing items held to be named.
func FilesHeld(rep *Report) (items, differing int) {
	return rep.Files.held, rep.Files.pendingHeld
}

// FilesSpilled is, for a check of files, the bytes its spills held on
// disk (the objects' items and the rows compared).
func FilesSpilled(rep *Report) int64 { return rep.Files.spilled }
