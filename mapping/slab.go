package mapping

// slab hands out values of T one at a time from chunks allocated together,
// so that the many small attribute values of an item (or a JSON document)
// cost a few allocations instead of one each. A value handed out is never
// handed out again; the chunk lives as long as any of its values.
type slab[T any] struct{ free []T }

// next is a fresh zero T from the current chunk, or from a new chunk of
// chunk values (at least one) when the current one is used up.
func (s *slab[T]) next(chunk int) *T {
	if len(s.free) == 0 {
		s.free = make([]T, max(chunk, 1))
	}
	x := &s.free[0]
	s.free = s.free[1:]
	return x
}
