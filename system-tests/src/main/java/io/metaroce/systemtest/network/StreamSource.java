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

import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.Publication;
import io.metaroce.client.status.CounterTypeId;
import io.metaroce.client.status.StreamCounterDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static io.metaroce.systemtest.network.StreamApp.epoch;
import static io.metaroce.systemtest.network.StreamApp.mbps;
import static io.metaroce.systemtest.network.StreamApp.millis;

/**
 * The sending end of a test stream, run inside a host's namespace with its own embedded media driver: publishes
 * {@code --count} messages ({@link StreamMessageDescriptor}: sequence, length, checksum; lengths from
 * {@code --sizes} in turn, fragmented when longer than the MTU) on a {@code metaroce:udp} exclusive publication to the
 * sink's endpoints (one per plane, from {@code --interfaces}), at {@code --rate} messages per second or as fast as
 * the stream takes them, then waits until the sink has acknowledged everything.
 * <p>
 * Output ({@link StreamApp}): {@code READY}, {@code CONNECTED}, {@code PROGRESS} with {@code messages},
 * {@code bytes}, {@code acked} (bytes the receiver acknowledged) and per plane {@code planeN_packets} and
 * {@code planeN_retransmits} from the driver's path counters, then one {@code RESULT} with {@code status} (ok,
 * timeout, stopped, error), {@code goodput_mbps} (message bytes from the first offer to the last acknowledgement),
 * the same counters and {@code retransmit_reasons}. Exit code 0 only when every message was sent and acknowledged.
 * <pre>
 * StreamSource --endpoints 10.1.0.2:40456,10.1.1.2:40456 --interfaces 10.1.0.1,10.1.1.1 --count 20000
 *              [--rate 3000] [--sizes 64,512,1300,3000,9000] [--stream 1001] [--timeout-ms 60000]
 * </pre>
 * The send loop allocates nothing: the message is written into one buffer sized for the longest message, and
 * back pressure parks the thread for 50 µs.
 */
public final class StreamSource
{
    private static final long IDLE_NS = TimeUnit.MICROSECONDS.toNanos(50);

    private final StreamOptions options;
    private final StreamDriver driver;
    private final AtomicBoolean running;
    private final PrintStream out;
    private final int[] sizes;
    private final StreamCounters counters;
    private final long progressIntervalNs;
    private final long deadlineNs;
    private ExclusivePublication publication;
    private int senderPositionId = CountersReader.NULL_COUNTER_ID;
    private long messages;
    private long bytes;
    private long backPressured;
    private long nextProgressNs;

    private StreamSource(
        final StreamOptions options, final StreamDriver driver, final AtomicBoolean running, final PrintStream out)
    {
        this.options = options;
        this.driver = driver;
        this.running = running;
        this.out = out;
        this.sizes = options.sizes();
        this.counters = new StreamCounters(driver.counters(), options.streamId(), options.planes());
        this.progressIntervalNs = TimeUnit.MILLISECONDS.toNanos(options.progressMs());
        this.deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.timeoutMs());
    }

    /**
     * Run the source.
     *
     * @param args options, see {@link StreamOptions}.
     */
    public static void main(final String[] args)
    {
        StreamApp.main("source", args,
            (options, driver, running, out) -> new StreamSource(options, driver, running, out).run());
    }

    private int run()
    {
        publication = driver.client().addExclusivePublication(options.channel(), options.streamId());
        if (options.maxSize() > publication.maxMessageLength())
        {
            out.println("ERROR " + epoch() + " reason=message_too_long max_message_length=" +
                publication.maxMessageLength());
            return StreamApp.EXIT_BAD_ARGUMENTS;
        }
        out.println("READY " + epoch() + " role=source session=" + publication.sessionId() + " dir=" +
            driver.directoryName() + " channel=" + options.channel() + " batched=" +
            driver.transport().contains("batched"));

        nextProgressNs = System.nanoTime();
        while (!publication.isConnected())
        {
            if (!running.get() || System.nanoTime() - deadlineNs > 0)
            {
                return finish(running.get() ? "timeout" : "stopped", 0, 0);
            }
            progress(System.nanoTime());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        out.println("CONNECTED " + epoch() + " session=" + publication.sessionId());

        final long startNs = System.nanoTime();
        final String failure = send(startNs);
        if (null != failure)
        {
            return finish(failure, startNs, System.nanoTime());
        }

        final long position = publication.position();
        while (acknowledged() < position)
        {
            if (!running.get() || System.nanoTime() - deadlineNs > 0)
            {
                return finish(running.get() ? "timeout" : "stopped", startNs, System.nanoTime());
            }
            progress(System.nanoTime());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }

        return finish("ok", startNs, System.nanoTime());
    }

    /**
     * Offer every message, paced by the target rate.
     *
     * @return null when all were offered, else the status to report.
     */
    private String send(final long startNs)
    {
        final long count = options.count();
        final long rate = options.rate();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[options.maxSize()]);
        int length = StreamMessageDescriptor.length(0, sizes);
        StreamMessageDescriptor.fill(buffer, 0, length);
        while (messages < count)
        {
            final long nowNs = System.nanoTime();
            progress(nowNs);
            if (!running.get())
            {
                return "stopped";
            }
            if (nowNs - deadlineNs > 0)
            {
                return "timeout";
            }
            if (rate > 0 && messages >= (nowNs - startNs) * rate / 1_000_000_000L)
            {
                LockSupport.parkNanos(IDLE_NS);
                continue;
            }

            final long result = publication.offer(buffer, 0, length);
            if (result > 0)
            {
                bytes += length;
                messages++;
                length = StreamMessageDescriptor.length(messages, sizes);
                StreamMessageDescriptor.fill(buffer, messages, length);
            }
            else if (Publication.BACK_PRESSURED == result || Publication.ADMIN_ACTION == result ||
                Publication.NOT_CONNECTED == result)
            {
                backPressured++;
                LockSupport.parkNanos(IDLE_NS);
            }
            else
            {
                out.println("ERROR " + epoch() + " reason=offer_failed result=" + result + " sequence=" + messages);
                return "error";
            }
        }

        return null;
    }

    private long acknowledged()
    {
        final CountersReader reader = driver.counters();
        if (CountersReader.NULL_COUNTER_ID == senderPositionId)
        {
            final long registrationId = publication.registrationId();
            reader.forEach((counterId, typeId, keyBuffer, label) ->
            {
                if (CounterTypeId.SENDER_ACKNOWLEDGED_POSITION == typeId &&
                    StreamCounterDescriptor.registrationId(keyBuffer, 0) == registrationId)
                {
                    senderPositionId = counterId;
                }
            });
            if (CountersReader.NULL_COUNTER_ID == senderPositionId)
            {
                return 0;
            }
        }

        return reader.getCounterValue(senderPositionId);
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
            .append(" messages=").append(messages)
            .append(" bytes=").append(bytes)
            .append(" acked=").append(acknowledged())
            .append(" back_pressured=").append(backPressured);
        out.println(counters.appendSender(line));
    }

    private int finish(final String status, final long startNs, final long endNs)
    {
        counters.sample();
        final StringBuilder line = new StringBuilder("RESULT ").append(epoch())
            .append(" role=source status=").append(status)
            .append(" messages=").append(messages)
            .append(" bytes=").append(bytes)
            .append(" acked=").append(acknowledged())
            .append(" elapsed_ms=").append(millis(endNs - startNs))
            .append(" goodput_mbps=").append(mbps(bytes, endNs - startNs))
            .append(" back_pressured=").append(backPressured);
        counters.appendSender(line).append(" retransmit_reasons=").append(counters.retransmitReasons());
        out.println(line);

        final boolean ok = "ok".equals(status);
        if (!ok)
        {
            driver.printErrorLog(out);
            driver.printCounters(out);
        }
        else if (driver.printErrorLog(out) > 0)
        {
            out.println("ERROR " + epoch() + " reason=driver_errors");
        }
        out.flush();
        publication.close();
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(options.closeLingerMs()));

        if (ok)
        {
            return StreamApp.EXIT_OK;
        }

        return "timeout".equals(status) ? StreamApp.EXIT_TIMEOUT :
            "stopped".equals(status) ? StreamApp.EXIT_STOPPED : StreamApp.EXIT_VIOLATION;
    }
}
