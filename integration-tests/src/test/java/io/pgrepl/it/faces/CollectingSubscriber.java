package io.pgrepl.it.faces;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.function.Consumer;

/** Requests one event at a time, runs {@code onEach} (which may sleep), keeps the events. */
class CollectingSubscriber<T> implements Flow.Subscriber<T> {
    final List<T> items = new CopyOnWriteArrayList<>();
    final CountDownLatch done = new CountDownLatch(1);
    volatile Throwable error;
    volatile Flow.Subscription subscription;
    private final Consumer<T> onEach;

    CollectingSubscriber(Consumer<T> onEach) {
        this.onEach = onEach;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        s.request(1);
    }

    @Override
    public void onNext(T item) {
        items.add(item);
        onEach.accept(item);
        subscription.request(1);
    }

    @Override
    public void onError(Throwable t) {
        error = t;
        done.countDown();
    }

    @Override
    public void onComplete() {
        done.countDown();
    }
}
