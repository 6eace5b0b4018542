-- LLM worker schema changes (placeholder of the LLM work).
SELECT 1;
