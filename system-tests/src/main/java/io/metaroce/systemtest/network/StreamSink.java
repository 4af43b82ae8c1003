/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.systemtest.network;

import io.metaroce.client.Image;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentAssembler;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static io.metaroce.systemtest.network.StreamApp.epoch;
import static io.metaroce.systemtest.network.StreamApp.mbps;
import static io.metaroce.systemtest.network.StreamApp.millis;

/**
 * The receiving end of a test stream, run inside a host's namespace with its own embedded media driver: subscribes
 * on its endpoints (one per plane) and checks every message {@link StreamSource} sends: intact, exactly once, in
 * order ({@link SequenceCheckHandler}). It stops when {@code --count} messages arrived in order (then keeps polling
 * for {@code --linger-ms} or until the end of the stream, so that a late duplicate is still seen), or with
 * {@code --count 0} at the end of the stream.
 * <p>
 * Output ({@link StreamApp}): {@code READY}, {@code CONNECTED}, {@code PROGRESS} with {@code messages},
 * {@code bytes}, {@code in_order} and the driver's receiver counters; {@code STALL} for every pause between messages
 * of at least {@code --stall-ms}; {@code DUPLICATE}, {@code GAP}, {@code CORRUPT} for each problem; one
 * {@code RESULT} with {@code status} (ok, violation, timeout, stopped), the counts ({@code messages},
 * {@code duplicates}, {@code gaps}, {@code corrupt}, {@code unexpected}, {@code missing}), {@code goodput_mbps}
 * (message bytes from the first message to the last), {@code longest_pause_ms}, {@code eos} and the receiver
 * counters. Exit code 0 only when everything expected arrived and every check held.
 * <pre>
 * StreamSink --endpoints 10.1.0.2:40456,10.1.1.2:40456 --count 20000 [--sizes ...] [--stream 1001]
 *            [--timeout-ms 60000] [--linger-ms 3000] [--stall-ms 20]
 * </pre>
 * The poll loop allocates nothing (fragment assembly reuses its buffer) and parks for 50 µs when idle.
 */
public final class StreamSink
{
    private static final long IDLE_NS = TimeUnit.MICROSECONDS.toNanos(50);
    private static final int FRAGMENT_LIMIT = 64;

    private final StreamOptions options;
    private final StreamDriver driver;
    private final AtomicBoolean running;
    private final PrintStream out;
    private final StreamCounters counters;
    private final SequenceCheckHandler checker;
    private final FragmentAssembler assembler;
    private final long progressIntervalNs;
    private final long deadlineNs;
    private Subscription subscription;
    private Image image;
    private long nextProgressNs;

    private StreamSink(
        final StreamOptions options, final StreamDriver driver, final AtomicBoolean running, final PrintStream out)
    {
        this.options = options;
        this.driver = driver;
        this.running = running;
        this.out = out;
        this.counters = new StreamCounters(driver.counters(), options.streamId(), options.planes());
        this.checker = new SequenceCheckHandler(
            options.sizes(), options.count(), TimeUnit.MILLISECONDS.toNanos(options.stallMs()), out);
        this.assembler = new FragmentAssembler(checker);
        this.progressIntervalNs = TimeUnit.MILLISECONDS.toNanos(options.progressMs());
        this.deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.timeoutMs());
    }

    /**
     * Run the sink.
     *
     * @param args options, see {@link StreamOptions}.
     */
    public static void main(final String[] args)
    {
        StreamApp.main("sink", args,
            (options, driver, running, out) -> new StreamSink(options, driver, running, out).run());
    }

    private int run()
    {
        subscription = driver.client().addSubscription(options.channel(), options.streamId());
        out.println("READY " + epoch() + " role=sink dir=" + driver.directoryName() + " channel=" + options.channel() +
            " batched=" + driver.transport().contains("batched"));

        nextProgressNs = System.nanoTime();
        while (!subscription.isConnected())
        {
            final String status = interruption(System.nanoTime());
            if (null != status)
            {
                return finish(status);
            }
            progress(System.nanoTime());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        image = subscription.images().get(0);
        out.println("CONNECTED " + epoch() + " session=" + image.sessionId() + " join_position=" +
            image.joinPosition() + " source=" + image.sourceIdentity());

        final long count = options.count();
        while (count > 0 ? checker.inOrder() < count : !isEndOfStream())
        {
            final int fragments = subscription.poll(assembler, FRAGMENT_LIMIT);
            final long nowNs = System.nanoTime();
            progress(nowNs);
            final String status = interruption(nowNs);
            if (null != status)
            {
                return finish(status);
            }
            if (0 == fragments)
            {
                LockSupport.parkNanos(IDLE_NS);
            }
        }

        final long lingerDeadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.lingerMs());
        while (!isEndOfStream() && System.nanoTime() - lingerDeadlineNs < 0 && running.get())
        {
            if (0 == subscription.poll(assembler, FRAGMENT_LIMIT))
            {
                progress(System.nanoTime());
                LockSupport.parkNanos(IDLE_NS);
            }
        }
        subscription.poll(assembler, FRAGMENT_LIMIT);

        return finish(checker.isClean() ? "ok" : "violation");
    }

    private boolean isEndOfStream()
    {
        if (image.isClosed() && subscription.imageCount() > 0)
        {
            image = subscription.images().get(0);
        }

        return image.isEndOfStream() || image.isClosed();
    }

    private String interruption(final long nowNs)
    {
        if (!running.get())
        {
            return "stopped";
        }

        return nowNs - deadlineNs > 0 ? "timeout" : null;
    }

    private void progress(final long nowNs)
    {
        if (nowNs - nextProgressNs < 0)
        {
            return;
        }
        nextProgressNs = nowNs + progressIntervalNs;
        counters.sample();
        final StringBuilder line = new StringBuilder("PROGRESS ").append(epoch())
            .append(" messages=").append(checker.messages())
            .append(" bytes=").append(checker.bytes())
            .append(" in_order=").append(checker.inOrder());
        out.println(counters.appendReceiver(line));
    }

    private int finish(final String status)
    {
        counters.sample();
        final long count = options.count();
        final long delivered = checker.inOrder() - checker.gaps();
        final long missing = count > 0 ? Math.max(0, count - delivered) : checker.gaps();
        final long durationNs = checker.lastMessageNs() - checker.firstMessageNs();
        final String finalStatus = "ok".equals(status) && missing > 0 ? "violation" : status;
        final StringBuilder line = new StringBuilder("RESULT ").append(epoch())
            .append(" role=sink status=").append(finalStatus)
            .append(" messages=").append(checker.messages())
            .append(" in_order=").append(checker.inOrder())
            .append(" expected=").append(count)
            .append(" duplicates=").append(checker.duplicates())
            .append(" gaps=").append(checker.gaps())
            .append(" corrupt=").append(checker.corrupt())
            .append(" unexpected=").append(checker.unexpected())
            .append(" missing=").append(missing)
            .append(" bytes=").append(checker.bytes())
            .append(" elapsed_ms=").append(millis(durationNs))
            .append(" goodput_mbps=").append(mbps(checker.bytes(), durationNs))
            .append(" longest_pause_ms=").append(millis(checker.longestPauseNs()))
            .append(" longest_pause_end_epoch_ms=").append(checker.longestPauseEndEpochMs())
            .append(" stalls=").append(checker.stalls())
            .append(" eos=").append(null != image && (image.isEndOfStream() || image.isClosed()));
        out.println(counters.appendReceiver(line));

        if (!"ok".equals(finalStatus))
        {
            driver.printErrorLog(out);
            driver.printCounters(out);
            out.flush();
            return "timeout".equals(finalStatus) ? StreamApp.EXIT_TIMEOUT :
                "stopped".equals(finalStatus) ? StreamApp.EXIT_STOPPED : StreamApp.EXIT_VIOLATION;
        }
        if (driver.printErrorLog(out) > 0)
        {
            out.println("ERROR " + epoch() + " reason=driver_errors");
        }
        out.flush();

        return StreamApp.EXIT_OK;
    }
}
