package io.pgrepl.client.internal.reactive;

/**
 * The owner of a {@link FlowBuffer}'s reused items: an item is lent to the subscriber for one
 * onNext and given back once that returned (after the after-onNext hook), or when it is discarded.
 * Both calls run on the subscriber's executor, in queue order, except a discard of an item pushed
 * after cancel or termination, which runs on the pushing thread.
 *
 * @param <T> the item type
 */
public interface Lease<T> {
    /**
     * Just before onNext: e.g. make the item readable on this thread. If it throws, the item is
     * given back and the subscriber gets onError with that exception instead (the source is cancelled).
     *
     * @param item the item about to be delivered
     */
    void lend(T item);

    /**
     * The subscriber is done with the item (its onNext returned or threw), or it was never
     * delivered: the owner may reuse it.
     *
     * @param item the item
     */
    void giveBack(T item);
}
