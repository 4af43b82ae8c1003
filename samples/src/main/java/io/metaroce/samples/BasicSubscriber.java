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

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Prints the messages published on a stream, with image arrivals and departures, through a running media driver
 * ({@code ./metaroce driver}), until Ctrl-C.
 * <p>
 * Properties: {@code metaroce.sample.channel} (metaroce:ipc), {@code metaroce.sample.stream.id} (1001), and the
 * client's {@code metaroce.dir}.
 */
public final class BasicSubscriber
{
    private BasicSubscriber()
    {
    }

    /**
     * Run the subscriber.
     *
     * @param args ignored.
     */
    public static void main(final String[] args)
    {
        final AtomicBoolean running = new AtomicBoolean(true);
        final ShutdownSignalBarrier barrier = new ShutdownSignalBarrier(() -> running.set(false));
        final FragmentHandler printer = (buffer, offset, length, header) -> System.out.println(
            "session " + header.sessionId() + " position " + header.position() + ": '" +
            buffer.getStringWithoutLengthUtf8(offset, length) + "'");
        final FragmentAssembler assembler = new FragmentAssembler(printer);
        final IdleStrategy idleStrategy = new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(1));

        System.out.println("subscribing to " + SampleConfiguration.CHANNEL + " stream " +
            SampleConfiguration.STREAM_ID + "; Ctrl-C to stop");
        try (MetaRoce client = MetaRoce.connect();
            Subscription subscription = client.addSubscription(
                SampleConfiguration.CHANNEL,
                SampleConfiguration.STREAM_ID,
                (image) -> System.out.println("image available: session " + image.sessionId() + " from " +
                    image.sourceIdentity() + " joined at " + image.joinPosition()),
                (image) -> System.out.println("image unavailable: session " + image.sessionId() + " at " +
                    image.position())))
        {
            while (running.get())
            {
                idleStrategy.idle(subscription.poll(assembler, SampleConfiguration.FRAGMENT_LIMIT));
            }
        }
        finally
        {
            barrier.close();
        }
    }
}
