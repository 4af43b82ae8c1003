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
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.TimeUnit;

/**
 * Publishes a few text messages, one a second, through a running media driver ({@code ./metaroce driver}).
 * <p>
 * Properties: {@code metaroce.sample.channel} (metaroce:ipc), {@code metaroce.sample.stream.id} (1001),
 * {@code metaroce.sample.messages} (10), and the client's {@code metaroce.dir}.
 */
public final class BasicPublisher
{
    private BasicPublisher()
    {
    }

    /**
     * Run the publisher.
     *
     * @param args ignored.
     * @throws InterruptedException if interrupted while pausing.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        System.out.println("publishing " + SampleConfiguration.MESSAGES + " messages to " +
            SampleConfiguration.CHANNEL + " stream " + SampleConfiguration.STREAM_ID);

        try (MetaRoce client = MetaRoce.connect();
            Publication publication = client.addPublication(SampleConfiguration.CHANNEL, SampleConfiguration.STREAM_ID))
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
            for (int i = 0; i < SampleConfiguration.MESSAGES; i++)
            {
                final String message = "Hello World! " + i;
                final int length = buffer.putStringWithoutLengthUtf8(0, message);
                final long result = publication.offer(buffer, 0, length);
                System.out.println(result > 0 ? "offered '" + message + "' at position " + result :
                    "offer of '" + message + "' failed: " + describe(result));
                TimeUnit.SECONDS.sleep(1);
            }
        }
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
