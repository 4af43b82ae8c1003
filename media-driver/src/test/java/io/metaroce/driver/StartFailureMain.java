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
package io.metaroce.driver;

import io.metaroce.client.MetaRoce;
import io.metaroce.client.exceptions.MetaRoceException;

/**
 * A JVM of {@link StartConfigurationTest} that starts a client ({@code client <dir>}) or an embedded driver
 * ({@code embedded <dir>}) and prints {@code STARTED}, or {@code FAILED <message>} and exits with status 1.
 */
public final class StartFailureMain
{
    private StartFailureMain()
    {
    }

    public static void main(final String[] args)
    {
        try
        {
            if ("client".equals(args[0]))
            {
                MetaRoce.connect(TestContexts.clientContext(args[1])).close();
            }
            else
            {
                MediaDriver.launchEmbedded(TestContexts.driverContext().directoryName(args[1])).close();
            }
            System.out.println("STARTED");
        }
        catch (final MetaRoceException ex)
        {
            System.out.println("FAILED " + ex.getMessage());
            System.exit(1);
        }
    }
}
