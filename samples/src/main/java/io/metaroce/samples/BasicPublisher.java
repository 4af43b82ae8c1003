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
import io.metaroce.client.Publication;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Publishes numbered text messages through a running media driver ({@code ./metaroce driver}): it waits for a
 * subscriber, then offers {@code --count} messages of {@code --length} bytes at {@code --rate} messages a second,
 * retrying an offer that is back pressured, and prints one line per message.
 * <p>
 * Usage: {@code ./metaroce publisher [--help] [options]}; every option also has a {@code metaroce.sample.*}
 * property, listed by {@code --help}.
 */
public final class BasicPublisher
{
    private BasicPublisher()
    {
    }

    /**
     * Run the publisher and exit with its status.
     *
     * @param args the command line; {@code --help} lists the options.
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    static ToolArguments arguments()
    {
        return CncReport.directoryOption(new ToolArguments("./metaroce publisher",
            "Publishes numbered text messages ('Hello World! <n>') through a running media driver, once a " +
            "subscriber is connected."))
            .option("channel", "URI", "metaroce.sample.channel", "metaroce:ipc", "channel to publish on")
            .option("stream", "ID", "metaroce.sample.stream.id", "1001", "stream id")
            .option("count", "N", "metaroce.sample.messages", "10", "messages to publish")
            .option("length", "BYTES", "metaroce.sample.message.length", "0",
                "message length, the text padded with '.'; 0: the text's own length")
            .option("rate", "MSGS", "metaroce.sample.rate", "1",
                "messages per second; 0: as fast as the stream takes them")
            .note("Output: 'publishing <count> messages of <length> bytes to <channel> stream <id> at <rate> " +
                "msgs/s', " +
                "then per message 'offered '<text>' at position <position>' (the stream position after it), or " +
                "why an offer failed for good (closed, max position exceeded); exit status 0 when every message " +
                "was offered, 1 otherwise.");
    }

    /**
     * Run the publisher.
     *
     * @param args the command line.
     * @param out  where the report and the usage go.
     * @param err  where errors go.
     * @return the exit status: 0 every message offered, 1 failure, 2 bad command line.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
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
        final int length;
        final long rate;
        try
        {
            streamId = arguments.intValue("stream");
            count = arguments.longValue("count");
            length = arguments.intValue("length");
            rate = arguments.longValue("rate");
        }
        catch (final IllegalArgumentException ex)
        {
            return arguments.usageError(err, ex.getMessage());
        }
        if (count < 0 || length < 0 || rate < 0)
        {
            return arguments.usageError(err, "--count, --length and --rate must not be negative");
        }

        out.println("publishing " + count + " messages of " + (0 == length ? "text" : length) + " bytes to " +
            channel + " stream " + streamId + " at " + (0 == rate ? "full" : rate) + " msgs/s");
        try (MetaRoce client = MetaRoce.connect(new MetaRoce.Context().directoryName(arguments.value("dir")));
            Publication publication = client.addPublication(channel, streamId))
        {
            if (length > publication.maxMessageLength())
            {
                return arguments.usageError(err, arguments.describe("length") + " " + length +
                    " is longer than the stream's maximum message length " + publication.maxMessageLength());
            }
            return publish(publication, count, length, rate, out, err);
        }
    }

    private static int publish(
        final Publication publication,
        final long count,
        final int length,
        final long rate,
        final PrintStream out,
        final PrintStream err)
    {
        final IdleStrategy idleStrategy = new BackoffIdleStrategy(
            10, 20, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1));
        if (!publication.isConnected())
        {
            out.println("waiting for a subscriber");
            while (!publication.isConnected())
            {
                if (publication.isClosed())
                {
                    err.println("publication closed before a subscriber connected");
                    return ToolArguments.EXIT_FAILURE;
                }
                idleStrategy.idle();
            }
        }

        final long intervalNs = 0 == rate ? 0 : TimeUnit.SECONDS.toNanos(1) / rate;
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[Math.max(length, 64)]);
        long nextNs = System.nanoTime();
        for (long i = 0; i < count; i++)
        {
            final String text = text(i, length);
            final int messageLength = buffer.putStringWithoutLengthAscii(0, text);
            long result;
            idleStrategy.reset();
            while ((result = publication.offer(buffer, 0, messageLength)) < 0)
            {
                if (Publication.CLOSED == result || Publication.MAX_POSITION_EXCEEDED == result)
                {
                    err.println("offer of message " + i + " failed: " + describe(result));
                    return ToolArguments.EXIT_FAILURE;
                }
                idleStrategy.idle();
            }
            out.println("offered '" + text + "' at position " + result);

            if (intervalNs > 0 && i + 1 < count)
            {
                nextNs += intervalNs;
                for (long waitNs = nextNs - System.nanoTime(); waitNs > 0; waitNs = nextNs - System.nanoTime())
                {
                    LockSupport.parkNanos(waitNs);
                }
            }
        }

        return ToolArguments.EXIT_OK;
    }

    /**
     * The text of a message: {@code Hello World! <n>} padded with dots to a length, or cut to it.
     */
    static String text(final long index, final int length)
    {
        final String text = "Hello World! " + index;
        if (0 == length || text.length() == length)
        {
            return text;
        }
        if (text.length() > length)
        {
            return text.substring(0, length);
        }
        final char[] padding = new char[length - text.length()];
        Arrays.fill(padding, '.');
        return text + new String(padding);
    }

    static String describe(final long result)
    {
        if (Publication.NOT_CONNECTED == result)
        {
            return "not connected (no subscriber yet)";
        }
        if (Publication.BACK_PRESSURED == result)
        {
            return "back pressured";
        }
        if (Publication.ADMIN_ACTION == result)
        {
            return "admin action (log rotated, retry)";
        }
        if (Publication.CLOSED == result)
        {
            return "closed";
        }
        if (Publication.MAX_POSITION_EXCEEDED == result)
        {
            return "max position exceeded";
        }
        return "unknown result " + result;
    }
}
