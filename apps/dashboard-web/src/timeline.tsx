import { useQuery } from '@tanstack/react-query';
import { Box, Chip, List, ListItem, Stack, Typography } from '@mui/material';
import type { TimelineEntry } from '@cip/backoffice/contract';
import { api } from './api';
import { JsonDetails, LoadError, Loading, Section, when } from './ui';

/** A user's or a card's timeline: every Event (name, time, collapsible body) and the staff actions on it. */
export function Timeline({ path }: { path: string }) {
  const query = useQuery({
    queryKey: ['operator', path],
    queryFn: () => api<{ data: TimelineEntry[] } | TimelineEntry[]>(path),
  });
  const entries = query.data ? (Array.isArray(query.data) ? query.data : query.data.data) : [];
  return (
    <Section title="Timeline">
      {query.isPending && <Loading />}
      {query.error && <LoadError error={query.error} />}
      {query.data && entries.length === 0 && <Typography variant="body2">No events yet.</Typography>}
      <List aria-label="Timeline" dense>
        {entries.map((entry, index) => (
          <ListItem
            key={entry.kind === 'event' ? entry.eventId : `${entry.entry.id}-${index}`}
            divider
            sx={{ display: 'block' }}
          >
            {entry.kind === 'event' ? (
              <Box>
                <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                  <Typography variant="body2" color="text.secondary" component="span">
                    {when(entry.at)}
                  </Typography>
                  <Typography variant="body2" component="span" sx={{ fontWeight: 600 }}>
                    {entry.eventName}
                  </Typography>
                </Stack>
                <JsonDetails value={entry.body} summary={`${entry.eventName} body`} />
              </Box>
            ) : (
              <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
                <Typography variant="body2" color="text.secondary" component="span">
                  {when(entry.at)}
                </Typography>
                <Chip size="small" label="staff action" color="secondary" />
                <Typography variant="body2" component="span" sx={{ fontWeight: 600 }}>
                  {entry.entry.action}
                </Typography>
                <Typography variant="body2" component="span">
                  by {entry.entry.staff.email} ({entry.entry.staff.role})
                  {entry.entry.reason ? `, reason: ${entry.entry.reason}` : ''}
                </Typography>
                <Chip
                  size="small"
                  variant="outlined"
                  color={entry.entry.outcome === 'succeeded' ? 'success' : 'error'}
                  label={
                    entry.entry.outcome === 'succeeded'
                      ? 'succeeded'
                      : `refused: ${entry.entry.errorCode ?? ''}`
                  }
                />
              </Stack>
            )}
          </ListItem>
        ))}
      </List>
    </Section>
  );
}
