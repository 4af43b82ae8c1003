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
package io.metaroce.systemtest.probe;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Options of the UDP probe: {@code --name value} pairs and {@code --flag} switches, checked against the names a mode
 * accepts so that a misspelt option fails at start naming it.
 */
final class ProbeArguments
{
    private final Map<String, String> values = new HashMap<>();

    ProbeArguments(final String[] args, final int from, final Set<String> options, final Set<String> flags)
    {
        int i = from;
        while (i < args.length)
        {
            final String arg = args[i];
            if (!arg.startsWith("--"))
            {
                throw new IllegalArgumentException("unexpected argument '" + arg + "'");
            }
            final String name = arg.substring(2);
            if (flags.contains(name))
            {
                values.put(name, "true");
                i++;
            }
            else if (options.contains(name))
            {
                if (i + 1 >= args.length)
                {
                    throw new IllegalArgumentException("--" + name + " needs a value");
                }
                values.put(name, args[i + 1]);
                i += 2;
            }
            else
            {
                throw new IllegalArgumentException("unknown option --" + name);
            }
        }
    }

    boolean flag(final String name)
    {
        return values.containsKey(name);
    }

    String string(final String name)
    {
        final String value = values.get(name);
        if (null == value)
        {
            throw new IllegalArgumentException("--" + name + " is required");
        }

        return value;
    }

    long longValue(final String name, final long defaultValue, final long min, final long max)
    {
        final String value = values.get(name);
        if (null == value)
        {
            return defaultValue;
        }

        final long parsed;
        try
        {
            parsed = Long.parseLong(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("--" + name + " '" + value + "' is not a number", ex);
        }
        if (parsed < min || parsed > max)
        {
            throw new IllegalArgumentException("--" + name + " " + parsed + " is not in " + min + ".." + max);
        }

        return parsed;
    }

    InetSocketAddress[] socketAddresses(final String name)
    {
        final String[] items = string(name).split(",");
        final InetSocketAddress[] addresses = new InetSocketAddress[items.length];
        for (int i = 0; i < items.length; i++)
        {
            final int colon = items[i].lastIndexOf(':');
            if (colon <= 0)
            {
                throw new IllegalArgumentException("--" + name + " '" + items[i] + "' is not address:port");
            }
            addresses[i] = new InetSocketAddress(
                numericAddress(name, items[i].substring(0, colon)),
                (int)parsePort(name, items[i].substring(colon + 1)));
        }

        return addresses;
    }

    InetAddress[] addresses(final String name)
    {
        if (!values.containsKey(name))
        {
            return new InetAddress[0];
        }

        final String[] items = string(name).split(",");
        final InetAddress[] addresses = new InetAddress[items.length];
        for (int i = 0; i < items.length; i++)
        {
            addresses[i] = numericAddress(name, items[i]);
        }

        return addresses;
    }

    private static InetAddress numericAddress(final String name, final String text)
    {
        if (!text.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}"))
        {
            throw new IllegalArgumentException("--" + name + " '" + text + "' is not a dotted IPv4 address");
        }
        try
        {
            return InetAddress.getByName(text);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("--" + name + " '" + text + "' is not an address", ex);
        }
    }

    private static long parsePort(final String name, final String text)
    {
        try
        {
            final int port = Integer.parseInt(text);
            if (port < 1 || port > 65535)
            {
                throw new IllegalArgumentException("--" + name + " port " + port + " is not in 1..65535");
            }
            return port;
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("--" + name + " port '" + text + "' is not a number", ex);
        }
    }
}
