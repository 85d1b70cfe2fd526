package io.sovia.spi.nio;

import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Set;

/**
 * The view apps get of a selected-key set: they may remove keys (they must, after handling them) but
 * not add, as {@code Selector.selectedKeys()} specifies.
 */
final class UngrowableSet<E> extends AbstractSet<E> {
    private final Set<E> set;

    UngrowableSet(Set<E> set) {
        this.set = set;
    }

    @Override
    public int size() {
        return set.size();
    }

    @Override
    public boolean isEmpty() {
        return set.isEmpty();
    }

    @Override
    public boolean contains(Object o) {
        return set.contains(o);
    }

    @Override
    public Iterator<E> iterator() {
        return set.iterator();
    }

    @Override
    public boolean remove(Object o) {
        return set.remove(o);
    }

    @Override
    public void clear() {
        set.clear();
    }

    @Override
    public boolean add(E e) {
        throw new UnsupportedOperationException();
    }
}
