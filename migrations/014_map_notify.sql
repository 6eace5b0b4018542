-- Map change notifications: only changes of mappable columns (placeholder of the map work).
SELECT 1;
