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

/**
 * Prints the backlog of a running driver's streams, in the spirit of Aeron's BacklogStat: per stream session, the
 * sender backlog of each network publication (publisher position minus acknowledged position: bytes published that the
 * receiver has not acknowledged yet), the receiver backlog of each subscriber of a network image (receiver
 * high-water mark minus subscriber position: bytes received that the subscriber has not read yet), and on IPC the
 * subscriber backlog (publisher position minus subscriber position). Reads the CnC file read-only, refreshed until
 * Ctrl-C or once with {@code --once}.
 * <p>
 * Usage: {@code ./metaroce backlog [--help] [options]}; {@code --help} lists the options.
 */
public final class BacklogStat
{
    private BacklogStat()
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
        final ToolArguments arguments = CncReport.refreshOptions(new ToolArguments("./metaroce backlog",
            "Prints the sender and receiver backlog of a running driver's streams, per stream session, from its " +
            "CnC file, read-only."))
            .option("stream", "ID", null, "only this stream id")
            .option("channel", "TEXT", null, "only streams with a channel containing TEXT")
            .note("Output: per stream session a line 'stream <id> session <id> <channel>', then 'sender backlog <n> " +
                "(publication <id>: pub-pos <n> - snd-ack-pos <n>)' per network publication, 'receiver backlog <n> " +
                "(subscription <id>: rcv-hwm <n> - sub-pos <n>)' per subscriber of a network image, and " +
                "'subscriber backlog <n> (subscription <id>: pub-pos <n> - sub-pos <n>)' per subscriber on IPC. " +
                "Backlogs are in bytes of stream position, never below 0 (pub-pos is sampled by the driver on its " +
                "timer, metaroce.timer.interval, and can trail the other positions for a moment).");
        return CncReport.runStreamReport("backlog", arguments, args, out, err, BacklogStat::print);
    }

    /**
     * Print the backlog of the streams that match a filter.
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
        for (final StreamPositions.Stream stream : StreamPositions.read(counters))
        {
            if (!stream.matches(streamId, channel))
            {
                continue;
            }
            printed++;
            out.println("stream " + stream.streamId() + " session " + stream.sessionId() + " " + stream.channel());
            for (final StreamPositions.Publication publication : stream.publications())
            {
                if (StreamPositions.NONE != publication.acknowledgedPosition())
                {
                    out.println("  sender backlog " +
                        StreamStat.difference(publication.publisherPos(), publication.acknowledgedPosition()) +
                        " (publication " + publication.registrationId() + ": pub-pos " +
                        StreamStat.position(publication.publisherPos()) + " - snd-ack-pos " +
                        publication.acknowledgedPosition() + ")");
                }
            }

            final boolean network = !stream.images().isEmpty();
            final long head = stream.head();
            for (final StreamPositions.Subscriber subscriber : stream.subscribers())
            {
                out.println("  " + (network ? "receiver" : "subscriber") + " backlog " +
                    StreamStat.difference(head, subscriber.position()) + " (subscription " +
                    subscriber.registrationId() + ": " + (network ? "rcv-hwm " : "pub-pos ") +
                    StreamStat.position(head) + " - sub-pos " + subscriber.position() + ")");
            }
        }
        out.println(printed + " stream sessions");
        return printed;
    }
}
