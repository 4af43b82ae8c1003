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

import org.agrona.concurrent.status.CountersReader;

import java.io.PrintStream;
import java.util.List;

/**
 * Prints a running driver's streams, in the spirit of Aeron's StreamStat: per stream session, its publications
 * (publisher position and limit, and for a network publication its acknowledged position and how far the publisher is
 * ahead of it), its images (receiver high-water mark), the state of a network stream in the connection that carries
 * it, and its subscribers (position and lag behind the image's high-water mark, or behind the publisher on IPC).
 * Reads the CnC file read-only, refreshed until Ctrl-C or once with {@code --once}.
 * <p>
 * Usage: {@code ./metaroce streams [--help] [options]}; {@code --help} lists the options.
 */
public final class StreamStat
{
    private StreamStat()
    {
    }

    /**
     * Run the tool and exit with its status.
     *
     * @param args the command line; {@code --help} lists the options.
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Run the tool.
     *
     * @param args the command line.
     * @param out  where the report and the usage go.
     * @param err  where errors go.
     * @return the exit status: 0 done, 1 no driver, 2 bad command line.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final ToolArguments arguments = CncReport.refreshOptions(new ToolArguments("./metaroce streams",
            "Prints a running driver's publications, images and subscriptions grouped by stream session, with " +
            "their positions and lag, from its CnC file, read-only."))
            .option("stream", "ID", null, "only this stream id")
            .option("channel", "TEXT", null, "only streams with a channel containing TEXT")
            .note("Output: per stream session a line 'stream <id> session <id> <channel>', then one line per " +
                "publication 'publication <registration id>: pub-pos <n> pub-lmt <n> [snd-ack-pos <n> unsent <n>]' " +
                "(unsent: pub-pos - snd-ack-pos, bytes the receiver has not acknowledged yet), per image 'image " +
                "<correlation id>: rcv-hwm <n>', per network stream state 'sender stream conn=<connection id>: " +
                "<state>' or 'receiver stream conn=<connection id>: <state>' (the connection that carries the " +
                "stream, and the stream's state in it: SETUP while opening, ESTABLISHED, ...) and per subscriber " +
                "'subscription <registration id>: sub-pos <n> lag <n>' (lag: the furthest rcv-hwm of the session's " +
                "images, or pub-pos on IPC, minus sub-pos). " +
                "pub-pos is sampled by the driver on its timer (metaroce.timer.interval), so it can trail the " +
                "other positions for a moment: unsent and lag never go below 0. " +
                "A line ends with its own channel when it differs from the session's. '-' is a position this " +
                "driver has no counter for.");
        return CncReport.runStreamReport("streams", arguments, args, out, err, StreamStat::print);
    }

    /**
     * Print the streams that match a filter.
     *
     * @param counters over the driver's counters.
     * @param streamId wanted, or null for any.
     * @param channel  substring of a channel of the stream, or null for any.
     * @param out      to print to.
     * @return the number of stream sessions printed.
     */
    static int print(final CountersReader counters, final Integer streamId, final String channel, final PrintStream out)
    {
        int printed = 0;
        final List<StreamPositions.Stream> streams = StreamPositions.read(counters);
        for (final StreamPositions.Stream stream : streams)
        {
            if (!stream.matches(streamId, channel))
            {
                continue;
            }
            printed++;
            out.println("stream " + stream.streamId() + " session " + stream.sessionId() + " " + stream.channel());
            for (final StreamPositions.Publication publication : stream.publications())
            {
                final StringBuilder line = new StringBuilder("  publication ").append(publication.registrationId())
                    .append(": pub-pos ").append(position(publication.publisherPos()))
                    .append(" pub-lmt ").append(position(publication.publisherLimit()));
                if (StreamPositions.NONE != publication.acknowledgedPosition())
                {
                    line.append(" snd-ack-pos ").append(publication.acknowledgedPosition()).append(" unsent ")
                        .append(difference(publication.publisherPos(), publication.acknowledgedPosition()));
                }
                out.println(line.append(otherChannel(stream, publication.channel())));
            }
            for (final StreamPositions.Image image : stream.images())
            {
                out.println("  image " + image.registrationId() + ": rcv-hwm " + image.receiverHwm() +
                    otherChannel(stream, image.channel()));
            }
            for (final StreamPositions.StreamState state : stream.states())
            {
                out.println("  " + state.side() + " stream conn=" + state.connection() + ": " + state.state());
            }
            final long head = stream.head();
            for (final StreamPositions.Subscriber subscriber : stream.subscribers())
            {
                out.println("  subscription " + subscriber.registrationId() + ": sub-pos " + subscriber.position() +
                    " lag " + difference(head, subscriber.position()) + otherChannel(stream, subscriber.channel()));
            }
        }
        out.println(printed + " stream sessions");
        return printed;
    }

    static String position(final long position)
    {
        return StreamPositions.NONE == position ? "-" : Long.toString(position);
    }

    /**
     * How far one position is ahead of another, never negative: the publisher position is sampled by the driver's
     * conductor on its timer, so it can trail the sender or subscriber positions for a moment.
     */
    static String difference(final long ahead, final long behind)
    {
        return StreamPositions.NONE == ahead || StreamPositions.NONE == behind ? "-" :
            Long.toString(Math.max(0, ahead - behind));
    }

    private static String otherChannel(final StreamPositions.Stream stream, final String channel)
    {
        return channel.equals(stream.channel()) ? "" : " " + channel;
    }
}
