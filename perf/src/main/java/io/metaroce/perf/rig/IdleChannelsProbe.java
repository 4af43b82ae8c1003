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
package io.metaroce.perf.rig;

import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import org.agrona.CloseHelper;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Holds subscriptions on many network channels of a running driver and nothing else, so that the driver's idle cost
 * per channel can be measured from outside (perf/scripts/idle-syscalls.sh counts its system calls with perf).
 * <p>
 * Arguments: {@code <channels> <first port> <seconds>}; each channel is {@code metaroce:udp} on two loopback planes
 * (127.0.0.2 and 127.0.0.3) at its own port. The driver's directory is the client's {@code metaroce.dir}.
 */
public final class IdleChannelsProbe
{
    private IdleChannelsProbe()
    {
    }

    /**
     * Subscribe, print "subscribed N", wait, close.
     *
     * @param args channels, first port, seconds.
     * @throws InterruptedException if interrupted while waiting.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        if (3 != args.length)
        {
            System.err.println("usage: IdleChannelsProbe <channels> <first port> <seconds>");
            System.exit(2);
        }
        final int channels = Integer.parseInt(args[0]);
        final int firstPort = Integer.parseInt(args[1]);
        final long seconds = Long.parseLong(args[2]);

        final List<Subscription> subscriptions = new ArrayList<>();
        try (MetaRoce client = MetaRoce.connect())
        {
            for (int i = 0; i < channels; i++)
            {
                final int port = firstPort + i;
                subscriptions.add(client.addSubscription(
                    "metaroce:udp?endpoint=127.0.0.2:" + port + ",127.0.0.3:" + port, 1001));
            }
            System.out.println("subscribed " + channels);
            System.out.flush();
            TimeUnit.SECONDS.sleep(seconds);
        }
        finally
        {
            CloseHelper.closeAll(subscriptions);
        }
    }
}
