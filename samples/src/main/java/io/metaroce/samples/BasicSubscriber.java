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
package io.metaroce.samples;

import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentAssembler;
import io.metaroce.client.logbuffer.FragmentHandler;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.ShutdownSignalBarrier;
import org.agrona.concurrent.SleepingIdleStrategy;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Prints the messages published on a stream, with image arrivals and departures, through a running media driver
 * ({@code ./metaroce driver}), until Ctrl-C or until {@code --count} messages arrived.
 * <p>
 * Usage: {@code ./metaroce subscriber [--help] [options]}; every option also has a {@code metaroce.sample.*}
 * property, listed by {@code --help}.
 */
public final class BasicSubscriber
{
    private BasicSubscriber()
    {
    }

    /**
     * Run the subscriber until Ctrl-C (or {@code --count} messages) and exit with its status.
     *
     * @param args the command line; {@code --help} lists the options.
     */
    public static void main(final String[] args)
    {
        final AtomicBoolean running = new AtomicBoolean(true);
        final ShutdownSignalBarrier barrier = new ShutdownSignalBarrier(() -> running.set(false));
        final int status;
        try
        {
            status = run(args, System.out, System.err, running::get);
        }
        finally
        {
            barrier.close();
        }
        System.exit(status);
    }

    static ToolArguments arguments()
    {
        return CncReport.directoryOption(new ToolArguments("./metaroce subscriber",
            "Prints the messages published on a stream, through a running media driver, until Ctrl-C."))
            .option("channel", "URI", "metaroce.sample.channel", "metaroce:ipc", "channel to subscribe to")
            .option("stream", "ID", "metaroce.sample.stream.id", "1001", "stream id")
            .option("count", "N", "metaroce.sample.subscriber.messages", "0",
                "stop after this many messages; 0: run until Ctrl-C")
            .option("fragment-limit", "N", "metaroce.sample.fragment.limit", "256", "fragments per poll")
            .flag("quiet", "print only image events and the final count, not each message")
            .note("Output: 'subscribing to <channel> stream <id>', 'image available: session <id> from <source> " +
                "joined at <position>' and 'image unavailable: session <id> at <position>' as publishers come " +
                "and go, per message 'session <id> position <position> length <bytes>: '<text>'' (the position " +
                "after the message), and at the end '<n> messages received'.");
    }

    /**
     * Run the subscriber.
     *
     * @param args    the command line.
     * @param out     where the messages and the usage go.
     * @param err     where errors go.
     * @param running false to stop.
     * @return the exit status: 0 done, 2 bad command line.
     */
    public static int run(
        final String[] args, final PrintStream out, final PrintStream err, final BooleanSupplier running)
    {
        final ToolArguments arguments = arguments();
        final int status = arguments.parse(args, out, err);
        if (ToolArguments.CONTINUE != status)
        {
            return status;
        }

        final String channel = arguments.value("channel");
        final int streamId;
        final long count;
        final int fragmentLimit;
        try
        {
            streamId = arguments.intValue("stream");
            count = arguments.longValue("count");
            fragmentLimit = arguments.intValue("fragment-limit");
        }
        catch (final IllegalArgumentException ex)
        {
            return arguments.usageError(err, ex.getMessage());
        }
        if (count < 0 || fragmentLimit <= 0)
        {
            return arguments.usageError(err, "--count must not be negative and --fragment-limit must be positive");
        }

        final boolean quiet = arguments.has("quiet");
        final long[] received = new long[1];
        final FragmentHandler printer = (buffer, offset, length, header) ->
        {
            received[0]++;
            if (!quiet)
            {
                out.println("session " + header.sessionId() + " position " + header.position() + " length " +
                    length + ": '" + buffer.getStringWithoutLengthAscii(offset, length) + "'");
            }
        };
        final FragmentAssembler assembler = new FragmentAssembler(printer);
        final IdleStrategy idleStrategy = new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(1));

        out.println("subscribing to " + channel + " stream " + streamId +
            (0 == count ? "; Ctrl-C to stop" : " for " + count + " messages"));
        try (MetaRoce client = MetaRoce.connect(new MetaRoce.Context().directoryName(arguments.value("dir")));
            Subscription subscription = client.addSubscription(
                channel,
                streamId,
                (image) -> out.println("image available: session " + image.sessionId() + " from " +
                    image.sourceIdentity() + " joined at " + image.joinPosition()),
                (image) -> out.println("image unavailable: session " + image.sessionId() + " at " +
                    image.position())))
        {
            while (running.getAsBoolean() && (0 == count || received[0] < count))
            {
                final int limit = 0 == count ? fragmentLimit : (int)Math.min(fragmentLimit, count - received[0]);
                idleStrategy.idle(subscription.poll(assembler, limit));
            }
        }
        out.println(received[0] + " messages received");

        return ToolArguments.EXIT_OK;
    }
}
