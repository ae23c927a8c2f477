//! One stable sort for the whole crate: a merge sort on positions whose core is not generic, so
//! every caller shares one copy of it. The standard library's sort is monomorphized per element
//! type and comparator, and each copy costs kilobytes of WebAssembly.

/// Sorts `items` stably: `a` comes before `b` when `less(a, b)`; equal items keep their order.
pub fn sort_by<T>(items: &mut Vec<T>, mut less: impl FnMut(&T, &T) -> bool) {
    let order = {
        let items = &*items;
        positions(
            items.len(),
            &mut |a, b| match (items.get(a), items.get(b)) {
                (Some(a), Some(b)) => less(a, b),
                _ => false,
            },
        )
    };
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(
        order
            .iter()
            .filter_map(|&i| slots.get_mut(i).and_then(Option::take)),
    );
}

/// The positions `0..n` in sorted order: a bottom-up merge sort, O(n log n), stable.
fn positions(n: usize, less: &mut dyn FnMut(usize, usize) -> bool) -> Vec<usize> {
    let mut from: Vec<usize> = (0..n).collect();
    let mut to = from.clone();
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = n.min(start + width);
            let end = n.min(start + 2 * width);
            let (mut left, mut right) = (start, mid);
            for slot in &mut to[start..end] {
                let take_right = right < end && (left >= mid || less(from[right], from[left]));
                if take_right {
                    *slot = from[right];
                    right += 1;
                } else {
                    *slot = from[left];
                    left += 1;
                }
            }
            start = end;
        }
        std::mem::swap(&mut from, &mut to);
        width *= 2;
    }
    from
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably() {
        let mut items: Vec<(u32, char)> = vec![(3, 'a'), (1, 'b'), (3, 'c'), (2, 'd'), (1, 'e')];
        sort_by(&mut items, |a, b| a.0 < b.0);
        assert_eq!(items, [(1, 'b'), (1, 'e'), (2, 'd'), (3, 'a'), (3, 'c')]);
    }

    #[test]
    fn matches_the_standard_sort_on_many_lengths() {
        let mut seed = 7u64;
        for n in 0..200 {
            let mut items: Vec<(u8, usize)> = (0..n)
                .map(|i| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    ((seed >> 60) as u8, i)
                })
                .collect();
            let mut expected = items.clone();
            expected.sort_by_key(|p| p.0);
            sort_by(&mut items, |a, b| a.0 < b.0);
            assert_eq!(items, expected, "n = {n}");
        }
    }

    #[test]
    fn strings() {
        let mut keys = vec![
            "b".to_owned(),
            "a".to_owned(),
            "".to_owned(),
            "ab".to_owned(),
        ];
        sort_by(&mut keys, |a, b| a < b);
        assert_eq!(keys, ["", "a", "ab", "b"]);
    }
}
